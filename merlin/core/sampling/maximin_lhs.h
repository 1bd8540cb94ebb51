#pragma once
/// A Latin hypercube whose rows are spread apart (`merlin sample -m maximin`): Morris and
/// Mitchell's criterion phi_p = (sum over row pairs of d^-p)^(1/p), p = 15, lowered by swapping
/// two rows' cells within one column (which keeps it a Latin hypercube) and keeping a swap
/// only when phi_p falls. Large p makes phi_p follow the smallest distance (maximin) while
/// every pair still counts. Pure and deterministic in (rows, dims, seed).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace merlin::sampling {

/// The most rows maximin takes: every swap compares a row with all others, and a design this
/// size is optimised in about a second per column on one core.
inline constexpr std::uint64_t kMaximinMaxRows = 20000;

/// rows × dims points in [0, 1), row-major: one point per 1/rows cell of every column, each at
/// a random place in its cell, the cells' order optimised as above.
std::vector<double> maximin_lhs_unit(std::uint64_t rows, std::size_t dims, std::uint64_t seed);

/// The smallest Euclidean distance between two rows of a row-major rows × dims design.
double min_row_distance(const std::vector<double>& points, std::size_t dims);

}  // namespace merlin::sampling
