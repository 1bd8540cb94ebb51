// What a fleet does on a turn where no study had work for its workers: wait for work, look
// again, or finish (--exit-when-done), and with which exit code.
#include "merlin/run/idle_turn.h"

#include <gtest/gtest.h>

#include "merlin/core/util/exit_codes.h"

namespace merlin::run {
namespace {

IdleTurnFacts serving_forever() { return IdleTurnFacts{}; }

IdleTurnFacts exiting_when_done() {
  IdleTurnFacts f;
  f.exit_when_done = true;
  return f;
}

TEST(IdleTurn, WithoutExitWhenDoneItWaitsAndAnnouncesOnlyTheFirstWait) {
  auto f = serving_forever();
  auto t = decide_idle_turn(f);
  EXPECT_EQ(t.next, IdleTurn::Next::kWait);
  EXPECT_TRUE(t.announce);
  f.announced_wait = true;
  t = decide_idle_turn(f);
  EXPECT_EQ(t.next, IdleTurn::Next::kWait);
  EXPECT_FALSE(t.announce);
}

TEST(IdleTurn, WithoutExitWhenDoneLostWorkIsCountedButTheFleetWaits) {
  auto f = serving_forever();
  f.lost = true;
  f.lost_polls = 4;
  auto t = decide_idle_turn(f);
  EXPECT_EQ(t.next, IdleTurn::Next::kWait);
  EXPECT_EQ(t.lost_polls, 5);
}

TEST(IdleTurn, WithExitWhenDoneAndNothingLostItFinishes) {
  auto t = decide_idle_turn(exiting_when_done());
  EXPECT_EQ(t.next, IdleTurn::Next::kFinish);
  EXPECT_EQ(t.lost_polls, 0);
  EXPECT_FALSE(t.announce);
}

TEST(IdleTurn, AStudyFoundLostIsLookedAtAgainOnceBeforeTheFleetGivesUp) {
  // `merlin restart` empties the queues for a moment before queueing them again.
  auto f = exiting_when_done();
  f.lost = true;
  auto t = decide_idle_turn(f);
  EXPECT_EQ(t.next, IdleTurn::Next::kLookAgain);
  EXPECT_EQ(t.lost_polls, 1);
  f.lost_polls = t.lost_polls;
  t = decide_idle_turn(f);
  EXPECT_EQ(t.next, IdleTurn::Next::kFinish);
  EXPECT_EQ(t.lost_polls, 2);
}

TEST(IdleTurn, WorkFoundAgainResetsTheLostCount) {
  auto f = exiting_when_done();
  f.lost_polls = 1;
  auto t = decide_idle_turn(f);
  EXPECT_EQ(t.lost_polls, 0);
  EXPECT_EQ(t.next, IdleTurn::Next::kFinish);
}

TEST(ExitStatusWhenDone, CleanOnlyWhenNothingIsStuckLostOrSkipped) {
  EXPECT_EQ(exit_status_when_done(false, false, false), kExitOk);
  EXPECT_EQ(exit_status_when_done(true, false, false), kExitFailed) << "left on stopped queues";
  EXPECT_EQ(exit_status_when_done(false, true, false), kExitFailed) << "lost by the broker";
  EXPECT_EQ(exit_status_when_done(false, false, true), kExitFailed) << "workspace not opened";
}

}  // namespace
}  // namespace merlin::run
