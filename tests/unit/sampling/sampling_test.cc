// `merlin sample`'s methods, checked on the properties that define them: Latin hypercube
// stratification, Sobol's exact 1-D stratification and known first points, low discrepancy of
// Sobol and Halton against independent uniforms, bounds and log scales, the normal's moments,
// the full grid; rows independent of blocking; bad input; files read back by the spec reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "merlin/core/samples/sample_table.h"
#include "merlin/core/sampling/maximin_lhs.h"
#include "merlin/core/sampling/sample_rows.h"
#include "merlin/core/sampling/sample_writer.h"
#include "merlin/core/sampling/sobol_directions.h"

namespace merlin::sampling {
namespace {

SampleDesign unit_design(Method m, std::uint64_t rows, std::size_t dims, std::uint64_t seed = 7) {
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

// The largest |fraction of points in [0,a) x [0,b) - a*b| over a 32 x 32 grid of (a, b): a
// star-discrepancy estimate of columns (i, j).
double discrepancy(const std::vector<double>& v, std::size_t dims, std::size_t i, std::size_t j) {
  const std::size_t n = v.size() / dims;
  double worst = 0;
  for (int ai = 1; ai <= 32; ++ai)
    for (int bi = 1; bi <= 32; ++bi) {
      const double a = ai / 32.0, b = bi / 32.0;
      std::size_t in = 0;
      for (std::size_t r = 0; r < n; ++r) in += v[r * dims + i] < a && v[r * dims + j] < b;
      worst = std::max(worst, std::abs(static_cast<double>(in) / n - a * b));
    }
  return worst;
}

TEST(Sampling, LatinHypercubePutsOneRowInEachOfNIntervalsPerColumn) {
  auto d = unit_design(Method::kLhs, 1000, 3);
  auto v = rows_of(d);
  for (std::size_t c = 0; c < 3; ++c) {
    std::set<std::uint64_t> cells;
    for (std::size_t r = 0; r < d.rows; ++r) cells.insert(static_cast<std::uint64_t>(v[r * 3 + c] * 1000));
    EXPECT_EQ(cells.size(), 1000u) << "column " << c << ": every stratum exactly once";
  }
  auto other = rows_of(unit_design(Method::kLhs, 1000, 3, 8));
  EXPECT_NE(v, other) << "another seed, another hypercube";
}

TEST(Sampling, SobolStartsWithTheKnownPointsAndStratifiesEveryColumnExactly) {
  auto d = unit_design(Method::kSobol, 8, 2);
  d.scramble = false;
  auto v = rows_of(d);
  const std::vector<double> first{0, 0, 0.5, 0.5, 0.75, 0.25, 0.25, 0.75,
                                  0.375, 0.375, 0.875, 0.875, 0.625, 0.125, 0.125, 0.625};
  EXPECT_EQ(v, first);
  for (bool scramble : {false, true}) {
    const std::size_t dims = 64;
    auto all = unit_design(Method::kSobol, 1024, dims);
    all.scramble = scramble;
    auto w = rows_of(all);
    for (std::size_t c = 0; c < dims; ++c) {
      std::set<int> cells;
      for (std::size_t r = 0; r < 1024; ++r) cells.insert(static_cast<int>(w[r * dims + c] * 1024));
      EXPECT_EQ(cells.size(), 1024u) << "column " << c << (scramble ? " scrambled" : "");
    }
  }
}

TEST(Sampling, SobolAndHaltonHaveFarLowerDiscrepancyThanIndependentUniforms) {
  const std::size_t dims = 6;
  auto uniform = rows_of(unit_design(Method::kUniform, 4096, dims));
  auto sobol = rows_of(unit_design(Method::kSobol, 4096, dims));
  auto halton = rows_of(unit_design(Method::kHalton, 4096, dims));
  for (auto [i, j] : {std::pair<std::size_t, std::size_t>{0, 1}, {2, 5}, {3, 4}}) {
    const double u = discrepancy(uniform, dims, i, j);
    EXPECT_LT(discrepancy(sobol, dims, i, j), u / 2) << "sobol columns " << i << "," << j;
    EXPECT_LT(discrepancy(halton, dims, i, j), u / 2) << "halton columns " << i << "," << j;
  }
}

TEST(Sampling, BoundsAndLogScaleAreKept) {
  SampleDesign d;
  d.method = Method::kUniform;
  d.rows = 20000;
  d.columns = {{"a", -3, 5, false}, {"k", 1e-4, 1, true}};
  auto v = rows_of(d);
  std::size_t below_geo_mean = 0;
  for (std::size_t r = 0; r < d.rows; ++r) {
    ASSERT_GE(v[r * 2], -3);
    ASSERT_LT(v[r * 2], 5);
    ASSERT_GE(v[r * 2 + 1], 1e-4);
    ASSERT_LE(v[r * 2 + 1], 1);
    below_geo_mean += v[r * 2 + 1] < 1e-2;
  }
  EXPECT_NEAR(static_cast<double>(below_geo_mean) / d.rows, 0.5, 0.02)
      << "uniform in log x: half below the geometric mean";
}

TEST(Sampling, NormalColumnsHaveTheirCentreAndASixthOfTheRangeAsSigma) {
  SampleDesign d;
  d.method = Method::kNormal;
  d.rows = 40000;
  d.columns = {{"t", 10, 22, false}};
  auto v = rows_of(d);
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  const double mean = sum / v.size();
  for (double x : v) sq += (x - mean) * (x - mean);
  EXPECT_NEAR(mean, 16, 0.03);
  EXPECT_NEAR(std::sqrt(sq / (v.size() - 1)), 2, 0.04);
}

TEST(Sampling, AFullGridHasKPointsPerColumnEndsIncluded) {
  EXPECT_EQ(grid_side(30, 3), 3u);
  EXPECT_EQ(grid_side(27, 3), 3u);
  EXPECT_EQ(grid_side(1000000, 2), 1000u);
  SampleDesign d;
  d.method = Method::kGrid;
  d.rows = 27;
  d.columns = {{"a", 0, 1, false}, {"b", 10, 20, false}, {"c", 1, 100, true}};
  auto v = rows_of(d);
  for (std::size_t c = 0; c < 3; ++c) {
    std::map<double, int> seen;
    for (std::size_t r = 0; r < 27; ++r) seen[v[r * 3 + c]]++;
    ASSERT_EQ(seen.size(), 3u) << "column " << c;
    for (const auto& [x, n] : seen) EXPECT_EQ(n, 9) << "column " << c << " value " << x;
  }
  EXPECT_EQ(v[0 * 3 + 2], 1);
  EXPECT_NEAR(v[1 * 3 + 2], 10, 1e-12) << "log scale: the geometric middle";
  EXPECT_NEAR(v[2 * 3 + 2], 100, 1e-12);
}

TEST(Sampling, RowsDoNotDependOnHowTheyAreBlocked) {
  for (Method m : {Method::kUniform, Method::kLhs, Method::kSobol, Method::kHalton, Method::kNormal}) {
    auto d = unit_design(m, 300, 4);
    auto whole = rows_of(d);
    std::vector<double> part(100 * 4);
    fill_rows(d, 150, 100, part.data());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + 150 * 4)) << method_name(m);
  }
}

TEST(Sampling, BadInputSaysWhatIsWrong) {
  EXPECT_EQ(parse_column("a=5:1").error().code, ErrorCode::kBadInput);
  EXPECT_NE(parse_column("a=5:1").error().message.find("lower bound is not below"), std::string::npos);
  EXPECT_NE(parse_column("k=0:1:log").error().message.find("above 0"), std::string::npos);
  EXPECT_NE(parse_column("a=x:1").error().message.find("'x' is no number"), std::string::npos);
  EXPECT_NE(parse_column("a=0:1:cubic").error().message.find("neither linear nor log"),
            std::string::npos);
  auto c = parse_column("k=1e-3:10:log");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->name, "k");
  EXPECT_TRUE(c->log);
  EXPECT_FALSE(parse_method("lhd").ok());
  auto d = unit_design(Method::kSobol, 10, kSobolMaxDims + 1);
  EXPECT_NE(check_design(d).error().message.find("at most"), std::string::npos);
  EXPECT_FALSE(check_design(unit_design(Method::kLhs, 0, 2)).ok());
  EXPECT_FALSE(check_design(unit_design(Method::kHalton, 10, kHaltonMaxDims + 1)).ok())
      << "a prime base per column: no two columns share one";
}

TEST(Sampling, HaltonTakesAThousandColumnsEachInsideItsBounds) {
  // The last column's base is the 1000th prime, 7919: its first unscrambled points are
  // 1/7919, 2/7919, ...
  auto d = unit_design(Method::kHalton, 50, kHaltonMaxDims);
  ASSERT_TRUE(check_design(d).ok());
  d.scramble = false;
  auto v = rows_of(d);
  ASSERT_EQ(v.size(), 50u * kHaltonMaxDims);
  for (double x : v) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
  }
  EXPECT_DOUBLE_EQ(v[kHaltonMaxDims - 1], 1.0 / 7919);
  EXPECT_DOUBLE_EQ(v[2 * kHaltonMaxDims - 1], 2.0 / 7919);
  EXPECT_DOUBLE_EQ(v[29], 1.0 / 113) << "the 30th base is unchanged";
  d.scramble = true;
  auto s = rows_of(d);
  for (double x : s) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
  }
}

TEST(Sampling, StarAndCcdPutEachColumnAtItsBoundsAndCentre) {
  auto star = unit_design(Method::kStar, 0, 3);
  star.columns[1] = {"k", 1, 100, true};
  star.rows = design_rows(star);
  ASSERT_EQ(star.rows, 6u);
  ASSERT_TRUE(check_design(star).ok());
  auto v = rows_of(star);
  const std::vector<double> want = {0, 10, 0.5, 1, 10, 0.5, 0.5, 1, 0.5,
                                    0.5, 100, 0.5, 0.5, 10, 0, 0.5, 10, 1};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-12) << i;
  EXPECT_EQ(v[10], 100.0) << "a bound is the bound itself, not exp(log(100))";

  auto ccd = unit_design(Method::kCcd, 0, 3);
  ccd.rows = design_rows(ccd);
  ASSERT_EQ(ccd.rows, 8u + 6u + 1u);
  auto c = rows_of(ccd);
  std::set<std::vector<double>> points;
  for (std::size_t r = 0; r < ccd.rows; ++r) points.insert({c[3 * r], c[3 * r + 1], c[3 * r + 2]});
  EXPECT_EQ(points.size(), 15u) << "no point twice";
  for (double a : {0.0, 1.0})
    for (double b : {0.0, 1.0})
      for (double d : {0.0, 1.0}) EXPECT_TRUE(points.count({a, b, d})) << "corner " << a << b << d;
  EXPECT_TRUE(points.count({0.5, 0.5, 0.5})) << "the centre";
  EXPECT_TRUE(points.count({0.5, 0.0, 0.5})) << "an axial point";
  EXPECT_FALSE(check_design(unit_design(Method::kCcd, 1, kCcdMaxDims + 1)).ok());
  auto with_dist = unit_design(Method::kStar, 2, 1);
  with_dist.columns[0].dist = Dist::kNormal;
  EXPECT_FALSE(check_design(with_dist).ok()) << "a distribution has no bounds to put points at";
}

TEST(Sampling, MaximinIsALatinHypercubeWithItsRowsFurtherApartThanLhs) {
  const std::size_t n = 100, dims = 3;
  double ratio_sum = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto m = rows_of(unit_design(Method::kMaximin, n, dims, seed));
    for (std::size_t c = 0; c < dims; ++c) {  // one point in each 1/n cell of every column
      std::set<int> cells;
      for (std::size_t r = 0; r < n; ++r) cells.insert(static_cast<int>(m[r * dims + c] * n));
      EXPECT_EQ(cells.size(), n) << "seed " << seed << " column " << c;
    }
    const double dm = min_row_distance(m, dims);
    const double dl = min_row_distance(rows_of(unit_design(Method::kLhs, n, dims, seed)), dims);
    EXPECT_GT(dm, dl) << "seed " << seed;
    ratio_sum += dm / dl;
    EXPECT_EQ(m, rows_of(unit_design(Method::kMaximin, n, dims, seed))) << "deterministic";
  }
  EXPECT_GT(ratio_sum / 5, 1.5) << "the smallest distance, maximin over plain LHS, on average";
  // Blocks of rows are the same rows as one call.
  auto d = unit_design(Method::kMaximin, n, dims, 9);
  std::vector<double> whole = rows_of(d), parts(n * dims);
  fill_rows(d, 0, 40, parts.data());
  fill_rows(d, 40, 60, parts.data() + 40 * dims);
  EXPECT_EQ(parts, whole);
  EXPECT_FALSE(check_design(unit_design(Method::kMaximin, kMaximinMaxRows + 1, 2)).ok());
}

TEST(Sampling, FilesReadBackThroughTheSpecsSampleReader) {
  const auto dir = std::filesystem::path(::testing::TempDir());
  auto d = unit_design(Method::kLhs, 70000, 3);  // more than one write block
  auto v = rows_of(d);
  for (const char* name : {"s.npy", "s.csv"}) {
    const std::string path = (dir / name).string();
    auto n = write_samples(d, path);
    ASSERT_TRUE(n.ok()) << n.error().message;
    EXPECT_EQ(*n, 70000u);
    auto t = samples::open_sample_table(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ((*t)->rows(), 70000u);
    ASSERT_EQ((*t)->columns(), 3u);
    for (std::size_t r : {std::size_t{0}, std::size_t{32768}, std::size_t{69999}})
      for (std::size_t c = 0; c < 3; ++c)
        EXPECT_EQ(std::stod((*t)->value(r, c)), v[r * 3 + c]) << name << " row " << r;
    std::filesystem::remove(path);
  }
  EXPECT_EQ(write_samples(d, (dir / "s.h5").string()).error().code, ErrorCode::kBadInput);
  EXPECT_EQ(write_samples(d, (dir / "s.json").string()).error().code, ErrorCode::kBadInput);
  auto unwritable = write_samples(d, "/proc/no/such/dir/s.npy");
  ASSERT_FALSE(unwritable.ok());
  EXPECT_NE(unwritable.error().message.find("/proc/no/such/dir/s.npy"), std::string::npos);
}

}  // namespace
}  // namespace merlin::sampling
