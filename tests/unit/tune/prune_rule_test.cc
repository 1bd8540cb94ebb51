#include "merlin/core/tune/prune_rule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace merlin::tune {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(MetricCurve, ReadsEveryBudgetedLineInOrderAndPassesOverTheRest) {
  const auto c = data::metric_curve(
      "{\"budget\": 1, \"value\": 0.5}\n"
      "not json\n"
      "{\"budget\": 2, \"loss\": 0.4}\n"              // no `value`
      "{\"value\": 0.3}\n"                            // no budget
      "{\"budget\": 3, \"value\": NaN, \"t\": 1}\n"   // Python's NaN
      "{\"budget\": 4, \"value\": Infinity}\n"
      "{\"budget\": \"5\", \"value\": 0.1}\n"         // a budget that is not a number
      "{\"budget\": 6, \"value\": 0.2",               // cut short by a kill
      "value");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].budget, 1);
  EXPECT_EQ(c[0].value, 0.5);
  EXPECT_EQ(c[1].budget, 3);
  EXPECT_TRUE(std::isnan(c[1].value));
  EXPECT_TRUE(std::isinf(c[2].value) && c[2].value > 0);
  EXPECT_TRUE(std::isinf(*data::last_metric("{\"value\": -Infinity}\n", "value")));
  EXPECT_LT(*data::last_metric("{\"value\": -Infinity}\n", "value"), 0);
  EXPECT_FALSE(data::last_metric("{\"value\": \"Infinity\"}\n", "value"));  // a string
  EXPECT_EQ(*data::last_metric("{\"note\": \"NaN Infinity\", \"value\": 2}\n", "value"), 2);
}

TEST(PruneRule, ValueAtTakesTheLastPointAtOrBelowTheBudget) {
  const std::vector<data::MetricPoint> c{{1, 0.9}, {2, 0.5}, {4, 0.3}, {4, 0.25}};
  EXPECT_FALSE(value_at(c, 0.5));
  EXPECT_EQ(*value_at(c, 1), 0.9);
  EXPECT_EQ(*value_at(c, 3), 0.5);  // logged at 2, not 3
  EXPECT_EQ(*value_at(c, 9), 0.25);  // a later line at the same budget wins (a rerun)
}

TEST(PruneRule, NewestBetweenIsTheLastLineInsideTheRungsInterval) {
  const std::vector<data::MetricPoint> c{{1, 0.9}, {2, 0.5}, {3, 0.4}};
  EXPECT_EQ(newest_between(c, 1, 9)->budget, 3);
  EXPECT_FALSE(newest_between(c, 3, 9));  // nothing since the rung began
  EXPECT_FALSE(newest_between(c, 0, 3));  // at the rung's budget: it is ending anyway
  EXPECT_FALSE(newest_between({}, 0, 3));
}

TEST(PruneRule, PrunesOutsideTheTopOneOverEtaOfTheFinished) {
  // eta 3: with 2 finished, keep = floor(3/3) = 1; the trial must beat the best of them.
  auto v = prune_verdict({2, 0.5}, {0.4, 0.6}, 3, false);
  EXPECT_TRUE(v.prune);
  EXPECT_EQ(v.keep, 1u);
  EXPECT_EQ(v.cut, 0.4);
  EXPECT_EQ(v.compared, 2u);
  EXPECT_FALSE(prune_verdict({2, 0.3}, {0.4, 0.6}, 3, false).prune);
  EXPECT_FALSE(prune_verdict({2, 0.4}, {0.4, 0.6}, 3, false).prune);  // a tie goes on
  // mode max: higher is better.
  EXPECT_FALSE(prune_verdict({2, 0.5}, {0.4, 0.6, 0.1, 0.2, 0.3}, 3, true).prune);  // keep 2
  EXPECT_TRUE(prune_verdict({2, 0.35}, {0.4, 0.6, 0.1, 0.2, 0.3}, 3, true).prune);
}

TEST(PruneRule, TooFewFinishedPrunesNothing) {
  // keep = floor((m + 1) / eta) = 0: the rung has no cut yet.
  auto v = prune_verdict({2, 100}, {0.1}, 3, false);
  EXPECT_FALSE(v.prune);
  EXPECT_EQ(v.keep, 0u);
  EXPECT_FALSE(prune_verdict({2, 100}, {}, 2, false).prune);
  EXPECT_TRUE(prune_verdict({2, 100}, {0.1}, 2, false).prune);
}

TEST(PruneRule, NaNIsWorseThanAnyNumber) {
  EXPECT_TRUE(prune_verdict({2, kNaN}, {0.4, 0.6}, 3, false).prune);     // diverged
  EXPECT_FALSE(prune_verdict({2, 0.9}, {kNaN, kNaN}, 3, false).prune);   // they have none
  EXPECT_FALSE(prune_verdict({2, kNaN}, {kNaN, kNaN}, 3, false).prune);  // nobody is better
  auto v = prune_verdict({2, 0.9}, {kNaN, 0.5, kNaN, kNaN, kNaN}, 3, false);  // keep 2
  EXPECT_FALSE(v.prune);  // second best of the others is NaN
}

}  // namespace
}  // namespace merlin::tune
