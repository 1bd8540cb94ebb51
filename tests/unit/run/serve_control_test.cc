// The control loop of a fleet serving a study, turn by turn, with the time given: when it
// heartbeats, drains (and says it is for the allocation's end) and aborts.
#include "merlin/run/serve_control.h"

#include <gtest/gtest.h>

namespace merlin::run {
namespace {

using std::chrono::milliseconds;
using TimePoint = std::chrono::steady_clock::time_point;

const TimePoint kStart{std::chrono::hours(1)};

ServeTurnFacts at(milliseconds since_start) { return {kStart + since_start, 0, false, {}}; }

TEST(ServeControl, HeartbeatsOnTheFirstTurnThenOncePerSecond) {
  ServeControl c;
  EXPECT_TRUE(c.advance(at(milliseconds(0))).beat) << "listed at once";
  EXPECT_FALSE(c.advance(at(milliseconds(100))).beat);
  EXPECT_FALSE(c.advance(at(milliseconds(999))).beat);
  EXPECT_TRUE(c.advance(at(milliseconds(1000))).beat);
  EXPECT_FALSE(c.advance(at(milliseconds(1900))).beat) << "a second after the last beat";
  EXPECT_TRUE(c.advance(at(milliseconds(2300))).beat);
}

TEST(ServeControl, NothingAskedNothingStops) {
  ServeControl c;
  for (int i = 0; i < 30; ++i) {
    auto t = c.advance(at(milliseconds(100 * i)));
    EXPECT_FALSE(t.drain || t.abort || t.drain_for_allocation);
  }
}

TEST(ServeControl, AStopRequestDrainsOnceWithoutAborting) {
  ServeControl c;
  auto f = at(milliseconds(0));
  f.stop_requested = true;
  auto t = c.advance(f);
  EXPECT_TRUE(t.drain);
  EXPECT_FALSE(t.drain_for_allocation);
  EXPECT_FALSE(t.abort);
  f.now += milliseconds(100);
  t = c.advance(f);
  EXPECT_FALSE(t.drain || t.abort) << "already draining";
}

TEST(ServeControl, TheAllocationsEndDrainsAndSaysSo) {
  ServeControl c;
  auto f = at(milliseconds(0));
  f.drain_at = kStart + milliseconds(500);
  EXPECT_FALSE(c.advance(f).drain) << "before the drain time";
  f.now = kStart + milliseconds(500);
  auto t = c.advance(f);
  EXPECT_TRUE(t.drain);
  EXPECT_TRUE(t.drain_for_allocation);
  EXPECT_FALSE(t.abort);
}

TEST(ServeControl, FirstInterruptDrainsTheSecondAbortsTheRunningSteps) {
  ServeControl c;
  auto f = at(milliseconds(0));
  f.interrupts = 1;
  auto t = c.advance(f);
  EXPECT_TRUE(t.drain);
  EXPECT_FALSE(t.abort);
  f.interrupts = 2;
  t = c.advance(f);
  EXPECT_FALSE(t.drain);
  EXPECT_TRUE(t.abort);
}

TEST(ServeControl, AnInterruptDrainPastTheDrainTimeIsTheAllocationsToo) {
  ServeControl c;
  auto f = at(milliseconds(0));
  f.interrupts = 1;
  f.drain_at = kStart;
  auto t = c.advance(f);
  EXPECT_TRUE(t.drain);
  EXPECT_TRUE(t.drain_for_allocation);
}

TEST(PastDrainTime, NoDrainTimeIsNeverPast) {
  EXPECT_FALSE(past_drain_time(std::nullopt, kStart));
  EXPECT_FALSE(past_drain_time(kStart + milliseconds(1), kStart));
  EXPECT_TRUE(past_drain_time(kStart, kStart));
  EXPECT_TRUE(past_drain_time(kStart, kStart + milliseconds(1)));
}

}  // namespace
}  // namespace merlin::run
