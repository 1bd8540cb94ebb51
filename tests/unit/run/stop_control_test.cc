// How interrupts and stop requests become drain and abort, for local runs and worker fleets.
#include "merlin/run/stop_control.h"

#include <gtest/gtest.h>

#include <csignal>

namespace merlin::run {
namespace {

TEST(StopControl, FirstInterruptDrainsSecondAbortsEachOnce) {
  StopControl c;
  auto s = c.advance(0, false);
  EXPECT_FALSE(s.drain || s.abort);
  s = c.advance(1, false);
  EXPECT_TRUE(s.drain);
  EXPECT_FALSE(s.abort);
  s = c.advance(1, false);
  EXPECT_FALSE(s.drain || s.abort) << "nothing new: nothing to do";
  s = c.advance(2, false);
  EXPECT_FALSE(s.drain);
  EXPECT_TRUE(s.abort);
  s = c.advance(5, true);
  EXPECT_FALSE(s.drain || s.abort) << "more signals after the abort change nothing";
}

TEST(StopControl, TwoInterruptsBeforeTheLoopLooksDrainAndAbortAtOnce) {
  StopControl c;
  auto s = c.advance(2, false);
  EXPECT_TRUE(s.drain);
  EXPECT_TRUE(s.abort);
}

TEST(StopControl, AStopRequestOrTheAllocationsEndDrainsWithoutAborting) {
  StopControl c;
  auto s = c.advance(0, true);
  EXPECT_TRUE(s.drain);
  EXPECT_FALSE(s.abort);
  EXPECT_TRUE(c.draining());
  s = c.advance(1, true);
  EXPECT_FALSE(s.drain || s.abort) << "already draining; one interrupt does not abort";
  s = c.advance(2, true);
  EXPECT_TRUE(s.abort);
}

TEST(Interrupts, TheHandlerOnlyCounts) {
  Interrupts::install({SIGUSR2});
  EXPECT_EQ(Interrupts::count(), 0);
  ::raise(SIGUSR2);
  ::raise(SIGUSR2);
  EXPECT_EQ(Interrupts::count(), 2) << "the process is still here: the signal was counted";
  Interrupts::uninstall({SIGUSR2});
  EXPECT_EQ(Interrupts::count(), 0) << "a later run (or test) does not inherit the count";
}

}  // namespace
}  // namespace merlin::run
