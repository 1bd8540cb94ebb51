#pragma once
/// Direction numbers of the Sobol sequence for the first dimensions: the primitive polynomials
/// and initial m values that Joe and Kuo published (new-joe-kuo-6.21201, the first rows), as
/// data. Dimension 1 is the van der Corput sequence and has no row.
#include <cstddef>
#include <cstdint>

namespace merlin::sampling {

struct SobolRow {
  unsigned degree;     ///< s: the polynomial's degree
  unsigned poly;       ///< a: its inner coefficients as bits
  std::uint32_t m[8];  ///< the s initial odd m values
};

inline constexpr SobolRow kSobolRows[] = {
    {1, 0, {1}},
    {2, 1, {1, 3}},
    {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},
    {4, 1, {1, 1, 3, 3}},
    {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},
    {5, 4, {1, 1, 5, 5, 5}},
    {5, 7, {1, 1, 7, 11, 19}},
    {5, 11, {1, 1, 5, 1, 1}},
    {5, 13, {1, 1, 1, 3, 11}},
    {5, 14, {1, 3, 5, 5, 31}},
};
inline constexpr std::size_t kSobolMaxDims = 1 + sizeof(kSobolRows) / sizeof(kSobolRows[0]);

}  // namespace merlin::sampling
