// A study's "done of total" is one sum over its instances.
#include "merlin/run/progress_totals.h"

#include <gtest/gtest.h>

namespace merlin::run {
namespace {

TEST(ProgressTotals, SumsDoneExpectedAndFailedOverInstances) {
  InstanceProgress a;
  a.total = 10;
  a.done = 4;
  a.failed = 1;
  InstanceProgress b;
  b.total = 5;
  b.done = 5;
  EXPECT_EQ(totals_of({a, b}), (ProgressTotals{9, 15, 1}));
}

TEST(ProgressTotals, AFanOutNotCountedYetStillWaitsForOneTask) {
  InstanceProgress fanout;
  fanout.count_known = false;
  auto t = totals_of({fanout});
  EXPECT_EQ(t.total, 1u);
  EXPECT_EQ(t.done, 0u);
}

TEST(ProgressTotals, NoInstancesIsZeroOfZero) { EXPECT_EQ(totals_of({}), ProgressTotals{}); }

}  // namespace
}  // namespace merlin::run
