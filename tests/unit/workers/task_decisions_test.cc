// The worker's decisions on one delivery, as plain values: what it does with a delivery before
// running anything, whose fault an unusable scratch is, and what follows a step's run.
#include "workers/task_decisions.h"

#include <gtest/gtest.h>

namespace merlin {
namespace {

constexpr int kMaxRetries = 2;

DeliveryFacts leaf() { return DeliveryFacts{}; }

RunFacts ran(int exit_code, std::uint32_t attempt = 0) {
  RunFacts f;
  f.exit_code = exit_code;
  f.attempt = attempt;
  f.max_retries = kMaxRetries;
  return f;
}

// decide_delivery

TEST(DecideDelivery, ARangeIsSplitWhateverElseIsKnown) {
  DeliveryFacts f;
  f.leaf = false;
  f.runnable = false;
  f.redelivered = true;
  f.deliveries = 99;
  f.max_deliveries = 1;
  EXPECT_EQ(decide_delivery(f), DeliveryAction::kSplit);
}

TEST(DecideDelivery, ARunnableLeafRuns) {
  EXPECT_EQ(decide_delivery(leaf()), DeliveryAction::kRun);
}

TEST(DecideDelivery, AnAlreadyCommittedLeafIsSkipped) {
  auto f = leaf();
  f.runnable = false;
  EXPECT_EQ(decide_delivery(f), DeliveryAction::kSkip);
}

TEST(DecideDelivery, AnAlreadyCommittedRedeliveredLeafRepublishesItsFollowUpsThenIsSkipped) {
  // Its first worker may have died (or lost its lease) between the commit and the publish.
  auto f = leaf();
  f.runnable = false;
  f.redelivered = true;
  EXPECT_EQ(decide_delivery(f), DeliveryAction::kRepublishThenSkip);
}

TEST(DecideDelivery, ARedeliveredLeafNotYetCommittedRunsAgain) {
  auto f = leaf();
  f.redelivered = true;
  f.deliveries = 2;
  f.max_deliveries = 10;
  EXPECT_EQ(decide_delivery(f), DeliveryAction::kRun);
}

TEST(DecideDelivery, ALeafDeliveredMoreThanTheLimitIsGivenUpNotRun) {
  auto f = leaf();
  f.redelivered = true;
  f.max_deliveries = 3;
  f.deliveries = 3;
  EXPECT_EQ(decide_delivery(f), DeliveryAction::kRun) << "the limit itself still runs";
  f.deliveries = 4;
  EXPECT_EQ(decide_delivery(f), DeliveryAction::kGiveUp);
}

TEST(DecideDelivery, NoDeliveryCapOrNoCountNeverGivesUp) {
  auto f = leaf();
  f.max_deliveries = 0;
  f.deliveries = 1000;
  EXPECT_EQ(decide_delivery(f), DeliveryAction::kRun) << "max_deliveries 0: no cap";
  f.max_deliveries = 3;
  f.deliveries = 0;
  EXPECT_EQ(decide_delivery(f), DeliveryAction::kRun) << "a broker that does not count";
}

TEST(DecideDelivery, ACommittedLeafIsSkippedEvenPastTheDeliveryLimit) {
  auto f = leaf();
  f.runnable = false;
  f.redelivered = true;
  f.max_deliveries = 1;
  f.deliveries = 5;
  EXPECT_EQ(decide_delivery(f), DeliveryAction::kRepublishThenSkip);
}

// scratch_fault_is_the_nodes

TEST(ScratchFault, AFullOrUnusableScratchIsTheNodesAndTheTaskGoesBack) {
  EXPECT_TRUE(scratch_fault_is_the_nodes(ErrorCode::kNoSpace));
  EXPECT_TRUE(scratch_fault_is_the_nodes(ErrorCode::kUnavailable));
}

TEST(ScratchFault, AMissingStageInFileIsTheTasksAndItFails) {
  EXPECT_FALSE(scratch_fault_is_the_nodes(ErrorCode::kBadInput));
  EXPECT_FALSE(scratch_fault_is_the_nodes(ErrorCode::kRuntime));
  EXPECT_FALSE(scratch_fault_is_the_nodes(ErrorCode::kExists));
}

// decide_outcome

TEST(DecideOutcome, SuccessWritesTheFinishedMarkerAndCommitsSuccess) {
  auto o = decide_outcome(ran(0));
  EXPECT_EQ(o.next, TaskOutcome::Next::kCommit);
  EXPECT_EQ(o.step.outcome, Outcome::kSuccess);
  EXPECT_TRUE(o.mark_finished);
  EXPECT_FALSE(o.failure_is_error);
  EXPECT_FALSE(o.keep_scratch);
  EXPECT_FALSE(o.could_not_run);
  EXPECT_FALSE(o.step.stop_queue || o.step.stop_all);
}

TEST(DecideOutcome, ASuccessInScratchIsStagedBeforeItsCommit) {
  auto f = ran(0);
  f.scratch = true;
  auto o = decide_outcome(f);
  EXPECT_EQ(o.next, TaskOutcome::Next::kStageThenCommit);
  EXPECT_TRUE(o.step.write_finished) << "the stager writes the marker after the copy";
}

TEST(DecideOutcome, RestartAndRetryRequeueWhileRetriesAreLeft) {
  auto restart = decide_outcome(ran(100, 0));
  EXPECT_EQ(restart.next, TaskOutcome::Next::kRequeue);
  EXPECT_EQ(restart.step.next_kind, TaskKind::kRestart);
  auto retry = decide_outcome(ran(104, 1));
  EXPECT_EQ(retry.next, TaskOutcome::Next::kRequeue);
  EXPECT_EQ(retry.step.next_kind, TaskKind::kCmd);
  EXPECT_EQ(retry.exit_code, 104) << "logged with the requeue";
}

TEST(DecideOutcome, ARequeuedScratchTaskIsNotStagedItsNextAttemptStartsAfresh) {
  auto f = ran(104);
  f.scratch = true;
  EXPECT_EQ(decide_outcome(f).next, TaskOutcome::Next::kRequeue);
}

TEST(DecideOutcome, RetriesSpentCommitASoftFailLoggedAsAWarning) {
  auto o = decide_outcome(ran(104, kMaxRetries));
  EXPECT_EQ(o.next, TaskOutcome::Next::kCommit);
  EXPECT_EQ(o.step.outcome, Outcome::kSoftFail);
  EXPECT_FALSE(o.mark_finished);
  EXPECT_FALSE(o.failure_is_error);
}

TEST(DecideOutcome, SoftFailCommitsAFailureAndGoesOn) {
  auto o = decide_outcome(ran(101));
  EXPECT_EQ(o.next, TaskOutcome::Next::kCommit);
  EXPECT_EQ(o.step.outcome, Outcome::kSoftFail);
  EXPECT_FALSE(o.mark_finished);
  EXPECT_FALSE(o.step.stop_queue || o.step.stop_all);
}

TEST(DecideOutcome, AFailureInScratchKeepsTheScratchForInspection) {
  auto f = ran(101);
  f.scratch = true;
  auto o = decide_outcome(f);
  EXPECT_EQ(o.next, TaskOutcome::Next::kCommit);
  EXPECT_TRUE(o.keep_scratch);
  EXPECT_FALSE(decide_outcome(ran(101)).keep_scratch) << "no scratch, nothing to keep";
}

TEST(DecideOutcome, HardFailStopsTheQueueBeforeCommittingTheFailure) {
  auto o = decide_outcome(ran(102));
  EXPECT_EQ(o.next, TaskOutcome::Next::kCommit);
  EXPECT_EQ(o.step.outcome, Outcome::kHardFail);
  EXPECT_TRUE(o.step.stop_queue);
  EXPECT_FALSE(o.step.stop_all);
}

TEST(DecideOutcome, StopWorkersStopsEveryWorkerAndCommitsStopped) {
  auto o = decide_outcome(ran(105));
  EXPECT_EQ(o.next, TaskOutcome::Next::kCommit);
  EXPECT_EQ(o.step.outcome, Outcome::kStopped);
  EXPECT_TRUE(o.step.stop_all);
}

TEST(DecideOutcome, RaiseErrorFailsTheSampleAndIsLoggedAsAnError) {
  auto o = decide_outcome(ran(106));
  EXPECT_EQ(o.next, TaskOutcome::Next::kCommit);
  EXPECT_EQ(o.step.outcome, Outcome::kSoftFail);
  EXPECT_TRUE(o.failure_is_error);
}

TEST(DecideOutcome, AStepKilledByASignalRunsTheSameCommandAgain) {
  for (int code : {129, 130, 137, 143}) {
    auto o = decide_outcome(ran(code));
    EXPECT_EQ(o.next, TaskOutcome::Next::kRequeue) << code;
    EXPECT_TRUE(o.step.same_kind) << code;
  }
  EXPECT_EQ(decide_outcome(ran(137, kMaxRetries)).step.outcome, Outcome::kSoftFail)
      << "retries spent";
}

TEST(DecideOutcome, ATimedOutStepFollowsTheWalltimePolicyNotItsExitCode) {
  auto f = ran(0);
  f.timed_out = true;
  auto o = decide_outcome(f);
  EXPECT_EQ(o.next, TaskOutcome::Next::kCommit);
  EXPECT_EQ(o.step.outcome, Outcome::kTimedOut);
  EXPECT_FALSE(o.mark_finished);
  f.has_restart = true;
  EXPECT_EQ(decide_outcome(f).next, TaskOutcome::Next::kRequeue) << "with a restart command";
}

TEST(DecideOutcome, AnAbortedRunIsReleasedUncommittedWhateverItReturned) {
  for (int code : {0, 101, 102, 105}) {
    auto f = ran(code);
    f.aborted = true;
    EXPECT_EQ(decide_outcome(f).next, TaskOutcome::Next::kRelease) << code;
  }
  auto f = ran(0);
  f.aborted = true;
  f.run_error = ErrorCode::kNoSpace;
  EXPECT_EQ(decide_outcome(f).next, TaskOutcome::Next::kRelease) << "abort comes first";
}

TEST(DecideOutcome, AFullDiskStopsTheWorkerWithoutCommitting) {
  auto f = ran(0);
  f.run_error = ErrorCode::kNoSpace;
  EXPECT_EQ(decide_outcome(f).next, TaskOutcome::Next::kStopWorker);
}

TEST(DecideOutcome, AStepThatCouldNotRunIsASoftFail) {
  auto f = ran(0);
  f.run_error = ErrorCode::kRuntime;
  f.scratch = true;
  auto o = decide_outcome(f);
  EXPECT_TRUE(o.could_not_run);
  EXPECT_EQ(o.next, TaskOutcome::Next::kCommit);
  EXPECT_EQ(o.exit_code, 101);
  EXPECT_EQ(o.step.outcome, Outcome::kSoftFail);
  EXPECT_TRUE(o.keep_scratch);
}

}  // namespace
}  // namespace merlin
