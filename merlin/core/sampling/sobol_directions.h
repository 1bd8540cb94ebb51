#pragma once
/// Direction numbers of the Sobol sequence, from Joe and Kuo's new-joe-kuo-6.21201 table as
/// Boost.Random ships it (boost/random/detail/sobol_table.hpp: its first 3,667 dimensions).
/// Only the table is Boost's; the points are made by sample_rows.cc.
#include <array>
#include <cstddef>
#include <cstdint>

namespace merlin::sampling {

/// Sobol's columns: the dimensions of Boost.Random's table (BOOST_RANDOM_SOBOL_MAX_DIMENSION;
/// sobol_directions.cc checks the two agree).
inline constexpr std::size_t kSobolMaxDims = 3667;

/// The 32 direction integers of dimension `dim` (0-based, below kSobolMaxDims), most significant
/// bit first: v[k] is the k-th direction as a 32-bit binary fraction. Dimension 0 is the van der
/// Corput sequence.
std::array<std::uint32_t, 32> sobol_directions(std::size_t dim);

}  // namespace merlin::sampling
