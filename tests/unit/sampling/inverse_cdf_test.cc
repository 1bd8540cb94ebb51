// The inverse CDFs behind `merlin sample`'s column distributions, against reference values
// computed once with scipy 1.10 (Debian python3-scipy: scipy.stats.norm.ppf, truncnorm.ppf,
// beta.cdf, beta.ppf, printed with repr), and the column syntax that selects them.
#include <gtest/gtest.h>

#include <cmath>

#include "merlin/core/sampling/inverse_cdf.h"
#include "merlin/core/sampling/sample_design.h"
#include "merlin/core/sampling/sample_rows.h"

namespace merlin::sampling {
namespace {

TEST(InverseCdf, NormalQuantileMatchesScipy) {
  const std::pair<double, double> ref[] = {{1e-10, -6.361340902404056}, {0.001, -3.090232306167813},
                                           {0.02, -2.053748910631823},  {0.3, -0.5244005127080409},
                                           {0.5, 0.0},                  {0.9, 1.2815515655446004},
                                           {0.999, 3.090232306167813}};
  for (auto [u, z] : ref) EXPECT_NEAR(normal_quantile(u), z, 1e-12 * std::max(1.0, std::fabs(z))) << u;
  EXPECT_TRUE(std::isinf(normal_quantile(0)));
}

TEST(InverseCdf, TruncatedNormalMatchesScipy) {
  // truncnorm.ppf(0.3, (0-1)/2, (5-1)/2, loc=1, scale=2); truncnorm.ppf(0.5, 10, 12)
  EXPECT_NEAR(truncnorm_quantile(0.3, 1, 2, 0, 5), 1.0458815255428635, 1e-12);
  EXPECT_NEAR(truncnorm_quantile(0.5, 0, 1, 10, 12), 10.068411836058495, 1e-9) << "far tail";
}

TEST(InverseCdf, BetaMatchesScipy) {
  EXPECT_NEAR(beta_cdf(0.4, 2, 3), 0.5247999999999999, 1e-13);
  EXPECT_NEAR(beta_cdf(0.1, 0.5, 0.5), 0.20483276469913345, 1e-13);
  EXPECT_NEAR(beta_cdf(0.9, 5, 1.5), 0.7761721343162159, 1e-13);
  EXPECT_NEAR(beta_cdf(0.45, 30, 40), 0.6447480085585666, 1e-12);
  EXPECT_NEAR(beta_quantile(0.25, 2, 3), 0.24302208375607628, 1e-12);
  EXPECT_NEAR(beta_quantile(0.01, 0.5, 0.5), 0.00024671981713422146, 1e-14);
  EXPECT_NEAR(beta_quantile(0.9, 5, 1.5), 0.945754486362118, 1e-12);
  EXPECT_NEAR(beta_quantile(0.5, 30, 40), 0.4278873360055936, 1e-12);
}

TEST(InverseCdf, ColumnSyntax) {
  auto n = parse_column("x=normal:1:0.5");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n->dist, Dist::kNormal);
  EXPECT_EQ(n->p1, 1);
  EXPECT_EQ(n->p2, 0.5);
  auto t = parse_column("t=truncnorm:0:1:-1:2:round=0.1");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->dist, Dist::kTruncNormal);
  EXPECT_EQ(t->lo, -1);
  EXPECT_EQ(t->hi, 2);
  EXPECT_EQ(t->round, 0.1);
  auto b = parse_column("b=beta:2:3:10:20");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->lo, 10);
  auto c = parse_column("c=choice:1,2.5,4");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->choices, (std::vector<double>{1, 2.5, 4}));
  EXPECT_TRUE(parse_column("k=lognormal:0:1").ok());
  EXPECT_TRUE(parse_column("a=0:1:round=0.25").ok());
  for (const char* bad : {"x=normal:1:0", "x=normal:1", "x=lognormal:0:-1", "x=beta:0:1",
                          "x=beta:1:1:3:2", "x=truncnorm:0:1:2:1", "x=choice:", "x=choice:1,a",
                          "x=0:1:round=0", "x=0:1:round=-1", "x=normal:a:1"}) {
    auto r = parse_column(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput) << bad;
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
}

TEST(InverseCdf, DistributionsOverALatinHypercube) {
  SampleDesign d;
  d.method = Method::kLhs;
  d.rows = 20000;
  d.seed = 3;
  for (const char* col : {"n=normal:2:3", "t=truncnorm:0:1:-1:2", "b=beta:2:5:10:20",
                          "c=choice:1,2,4", "r=0:1:round=0.25"})
    d.columns.push_back(*parse_column(col));
  ASSERT_TRUE(check_design(d).ok());
  std::vector<double> v(d.rows * 5);
  fill_rows(d, 0, d.rows, v.data());
  double mean_n = 0, mean_b = 0;
  std::size_t ones = 0;
  for (std::size_t r = 0; r < d.rows; ++r) {
    mean_n += v[r * 5];
    ASSERT_GE(v[r * 5 + 1], -1);
    ASSERT_LE(v[r * 5 + 1], 2);
    mean_b += v[r * 5 + 2];
    const double c = v[r * 5 + 3];
    ASSERT_TRUE(c == 1 || c == 2 || c == 4);
    ones += c == 1;
    const double q = v[r * 5 + 4] * 4;
    ASSERT_EQ(q, std::round(q));
  }
  EXPECT_NEAR(mean_n / d.rows, 2, 0.01);
  EXPECT_NEAR(mean_b / d.rows, 10 + 10 * 2.0 / 7, 0.01);
  EXPECT_NEAR(static_cast<double>(ones) / d.rows, 1.0 / 3, 0.01);
  d.method = Method::kGrid;
  EXPECT_FALSE(check_design(d).ok()) << "no distributions over a grid";
}

}  // namespace
}  // namespace merlin::sampling
