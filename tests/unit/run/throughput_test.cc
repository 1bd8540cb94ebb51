// The monitor's rates and ETAs: from finished counts sampled at given times, no clock read.
#include "merlin/run/throughput.h"

#include <gtest/gtest.h>

namespace merlin::run {
namespace {

TEST(ThroughputHistory, RateIsOverTheLastMinuteOnly) {
  ThroughputHistory h;
  h.record(0, {0, 0});
  h.record(60'000, {600, 0});    // 10/s in the first minute
  h.record(120'000, {720, 30});  // 2/s in the second; step 1 0.5/s
  EXPECT_DOUBLE_EQ(h.rate(0), 2.0);
  EXPECT_DOUBLE_EQ(h.rate(1), 0.5);
  EXPECT_DOUBLE_EQ(h.rate(0, 120'000), 6.0) << "a longer window reaches the first sample";
}

TEST(ThroughputHistory, NoRateFromOneSampleOrAnUnknownStep) {
  ThroughputHistory h;
  EXPECT_EQ(h.rate(0), 0);
  h.record(1000, {5});
  EXPECT_EQ(h.rate(0), 0);
  h.record(2000, {7});
  EXPECT_EQ(h.rate(3), 0);
}

TEST(ThroughputHistory, ACountThatFallsGivesZeroNotANegativeRate) {
  ThroughputHistory h;
  h.record(0, {10});
  h.record(10'000, {4});  // a restart cleared failures
  EXPECT_EQ(h.rate(0), 0);
}

TEST(ThroughputHistory, ASampleFromThePastIsIgnored) {
  ThroughputHistory h;
  h.record(10'000, {10});
  h.record(5'000, {99});
  ASSERT_EQ(h.series().size(), 1u);
  EXPECT_EQ(h.series()[0].finished, 10u);
}

TEST(ThroughputHistory, KeepsAtMostMaxPointsAndSumsTheSteps) {
  ThroughputHistory h(3);
  for (int i = 0; i < 5; ++i)
    h.record(i * 1000, {static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(2 * i)});
  auto s = h.series();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.front().at_ms, 2000);
  EXPECT_EQ(s.front().finished, 6u);
  EXPECT_EQ(s.back().finished, 12u);
}

TEST(ThroughputHistory, EtaIsRemainingOverRateUnknownWithoutProgress) {
  EXPECT_EQ(ThroughputHistory::eta(100, 4.0), 25.0);
  EXPECT_EQ(ThroughputHistory::eta(0, 0.0), 0.0);
  EXPECT_FALSE(ThroughputHistory::eta(5, 0.0).has_value());
}

}  // namespace
}  // namespace merlin::run
