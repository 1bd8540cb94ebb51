// The randomised quasi-random sequences: Sobol's linear matrix scrambling and digital shift keep
// the net's balance (one point per elementary interval), Halton's per-digit permutations move
// every column (column 0 too), both stay in [0, 1), are reproducible from the seed and differ
// between seeds; the direction numbers of Boost's table agree with Joe and Kuo's first rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "merlin/core/sampling/qmc_scramble.h"
#include "merlin/core/sampling/sample_rows.h"
#include "merlin/core/sampling/sobol_directions.h"

namespace merlin::sampling {
namespace {

SampleDesign unit_design(Method m, std::uint64_t rows, std::size_t dims, std::uint64_t seed) {
  SampleDesign d;
  d.method = m;
  d.rows = rows;
  d.seed = seed;
  for (std::size_t i = 0; i < dims; ++i) d.columns.push_back({"x" + std::to_string(i), 0, 1, false});
  return d;
}

std::vector<double> rows_of(const SampleDesign& d) {
  std::vector<double> out(d.rows * d.columns.size());
  fill_rows(d, 0, d.rows, out.data());
  return out;
}

TEST(QmcScramble, SobolDirectionsAgreeWithJoeKuosFirstRows) {
  // new-joe-kuo-6.21201, dimensions 2..13: the initial m values (the table merlin carried before).
  const std::vector<std::vector<std::uint32_t>> m{
      {1},          {1, 3},          {1, 3, 1},        {1, 1, 1},         {1, 1, 3, 3},
      {1, 3, 5, 13}, {1, 1, 5, 5, 17}, {1, 1, 5, 5, 5}, {1, 1, 7, 11, 19}, {1, 1, 5, 1, 1},
      {1, 1, 1, 3, 11}, {1, 3, 5, 5, 31}};
  for (std::size_t dim = 1; dim <= m.size(); ++dim) {
    auto v = sobol_directions(dim);
    for (std::size_t k = 0; k < m[dim - 1].size(); ++k)
      EXPECT_EQ(v[k] >> (31 - k), m[dim - 1][k]) << "dimension " << dim << " m" << k;
  }
  EXPECT_EQ(kSobolMaxDims, 3667u);
  auto last = sobol_directions(kSobolMaxDims - 1);
  for (unsigned k = 0; k < 32; ++k) EXPECT_NE(last[k], 0u);
}

TEST(QmcScramble, ScrambledSobolIsStillANet) {
  const std::size_t dims = 40, n = 256;  // m = 8
  auto v = rows_of(unit_design(Method::kSobol, n, dims, 11));
  for (std::size_t c = 0; c < dims; ++c) {
    std::set<int> cells;
    for (std::size_t r = 0; r < n; ++r) {
      ASSERT_GE(v[r * dims + c], 0.0);
      ASSERT_LT(v[r * dims + c], 1.0);
      cells.insert(static_cast<int>(v[r * dims + c] * n));
    }
    EXPECT_EQ(cells.size(), n) << "column " << c << ": one point in each of 2^8 intervals";
  }
  // Columns 0 and 1 form a (0, 8, 2)-net: every 2^a x 2^b box with a + b = 8 holds one point.
  for (int a = 0; a <= 8; ++a) {
    std::set<std::pair<int, int>> boxes;
    for (std::size_t r = 0; r < n; ++r)
      boxes.insert({static_cast<int>(v[r * dims] * (1 << a)),
                    static_cast<int>(v[r * dims + 1] * (1 << (8 - a)))});
    EXPECT_EQ(boxes.size(), n) << "2^" << a << " x 2^" << 8 - a << " boxes";
  }
}

TEST(QmcScramble, SobolScramblingIsSeededAndMoreThanAShift) {
  auto a = rows_of(unit_design(Method::kSobol, 64, 3, 1));
  EXPECT_EQ(a, rows_of(unit_design(Method::kSobol, 64, 3, 1)));
  EXPECT_NE(a, rows_of(unit_design(Method::kSobol, 64, 3, 2)));
  // A digital shift alone XORs one constant into every point: the XOR of points 1 and 2 would be
  // the XOR of their unscrambled values. Linear scrambling changes that for some seed.
  auto plain = rows_of([] {
    auto d = unit_design(Method::kSobol, 64, 3, 1);
    d.scramble = false;
    return d;
  }());
  auto word = [](double x) { return static_cast<std::uint32_t>(std::ldexp(x, 32)); };
  int differs = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    auto s = rows_of(unit_design(Method::kSobol, 64, 3, seed));
    for (std::size_t c = 0; c < 3; ++c)
      differs += (word(s[3 * 3 + c]) ^ word(s[5 * 3 + c])) !=
                 (word(plain[3 * 3 + c]) ^ word(plain[5 * 3 + c]));
  }
  EXPECT_GT(differs, 0);
}

TEST(QmcScramble, SobolLmsMatrixIsLowerTriangularWithUnitDiagonal) {
  std::array<std::uint32_t, 32> unit{};
  for (unsigned k = 0; k < 32; ++k) unit[k] = std::uint32_t{1} << (31 - k);
  auto l = sobol_lms(unit, 5, 0);  // column k of L
  for (unsigned k = 0; k < 32; ++k) {
    EXPECT_TRUE(l[k] & (std::uint32_t{1} << (31 - k))) << "diagonal " << k;
    EXPECT_EQ(l[k] >> (31 - k) >> 1, 0u) << "nothing above the diagonal in column " << k;
  }
  EXPECT_NE(sobol_lms(unit, 5, 0), sobol_lms(unit, 6, 0));
  EXPECT_NE(sobol_lms(unit, 5, 0), sobol_lms(unit, 5, 1));
}

TEST(QmcScramble, HaltonPermutesEveryDigitOfEveryColumn) {
  for (unsigned base : {2u, 3u, 5u, 113u}) {
    HaltonDigits h(base, true, 9, 0);
    for (std::size_t pos = 0; pos < h.digits(); ++pos) {
      auto p = h.permutation(pos);
      std::sort(p.begin(), p.end());
      std::vector<unsigned> id(base);
      std::iota(id.begin(), id.end(), 0u);
      ASSERT_EQ(p, id) << "base " << base << " digit " << pos << " is a permutation";
    }
  }
  auto a = rows_of(unit_design(Method::kHalton, 500, 4, 1));
  auto b = rows_of(unit_design(Method::kHalton, 500, 4, 2));
  EXPECT_EQ(a, rows_of(unit_design(Method::kHalton, 500, 4, 1)));
  for (std::size_t c = 0; c < 4; ++c) {
    bool differ = false;
    for (std::size_t r = 0; r < 500; ++r) {
      differ |= a[r * 4 + c] != b[r * 4 + c];
      ASSERT_GE(a[r * 4 + c], 0.0);
      ASSERT_LT(a[r * 4 + c], 1.0);
    }
    EXPECT_TRUE(differ) << "column " << c << " differs between seeds";
  }
  // Column 0 (base 2) over many seeds: many distinct first points, not 1 or 2.
  std::set<double> first;
  for (std::uint64_t seed = 0; seed < 50; ++seed)
    first.insert(rows_of(unit_design(Method::kHalton, 1, 2, seed))[0]);
  EXPECT_GT(first.size(), 40u);
}

TEST(QmcScramble, ScrambledHaltonIsUnbiasedOverSeeds) {
  // The mean of x over 64 points, averaged over 200 seeds: 0.5 within a few standard errors.
  double sum = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    auto v = rows_of(unit_design(Method::kHalton, 64, 2, seed));
    for (std::size_t r = 0; r < 64; ++r) sum += v[r * 2] + v[r * 2 + 1];
  }
  EXPECT_NEAR(sum / (200 * 64 * 2), 0.5, 2e-3);
}

TEST(QmcScramble, UnscrambledHaltonIsTheRadicalInverse) {
  HaltonDigits h(3, false, 0, 0);
  EXPECT_DOUBLE_EQ(h(1), 1.0 / 3);
  EXPECT_DOUBLE_EQ(h(2), 2.0 / 3);
  EXPECT_DOUBLE_EQ(h(4), 1.0 / 3 + 1.0 / 9);
}

}  // namespace
}  // namespace merlin::sampling
