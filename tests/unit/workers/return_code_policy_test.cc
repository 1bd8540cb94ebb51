// Merlin's return-code protocol: what a worker does after a step exits with each code.
#include "workers/return_code_policy.h"

#include <gtest/gtest.h>

namespace merlin {
namespace {

constexpr int kMaxRetries = 3;

TEST(DecideReturn, SuccessCommitsSuccessAndWritesTheFinishedMarker) {
  auto d = decide_return(0, 0, kMaxRetries);
  EXPECT_FALSE(d.requeue);
  EXPECT_EQ(d.outcome, Outcome::kSuccess);
  EXPECT_TRUE(d.write_finished);
  EXPECT_FALSE(d.stop_queue);
  EXPECT_FALSE(d.stop_all);
}

TEST(DecideReturn, RestartRequeuesTheRestartCommand) {
  auto d = decide_return(100, 0, kMaxRetries);
  EXPECT_TRUE(d.requeue);
  EXPECT_EQ(d.next_kind, TaskKind::kRestart);
  EXPECT_FALSE(d.write_finished);
  EXPECT_STREQ(d.what, "restart");
}

TEST(DecideReturn, SoftFailCommitsAFailureAndGoesOn) {
  auto d = decide_return(101, 0, kMaxRetries);
  EXPECT_FALSE(d.requeue);
  EXPECT_EQ(d.outcome, Outcome::kSoftFail);
  EXPECT_FALSE(d.write_finished);
  EXPECT_FALSE(d.stop_queue);
  EXPECT_FALSE(d.stop_all);
}

TEST(DecideReturn, HardFailCommitsAFailureAndStopsTheQueue) {
  auto d = decide_return(102, 0, kMaxRetries);
  EXPECT_FALSE(d.requeue);
  EXPECT_EQ(d.outcome, Outcome::kHardFail);
  EXPECT_TRUE(d.stop_queue);
  EXPECT_FALSE(d.stop_all);
  EXPECT_FALSE(d.write_finished);
}

TEST(DecideReturn, RetryRequeuesTheSameCommand) {
  auto d = decide_return(104, 1, kMaxRetries);
  EXPECT_TRUE(d.requeue);
  EXPECT_EQ(d.next_kind, TaskKind::kCmd);
  EXPECT_FALSE(d.write_finished);
  EXPECT_STREQ(d.what, "retry");
}

TEST(DecideReturn, StopWorkersCommitsStoppedAndStopsEverything) {
  auto d = decide_return(105, 0, kMaxRetries);
  EXPECT_FALSE(d.requeue);
  EXPECT_EQ(d.outcome, Outcome::kStopped);
  EXPECT_TRUE(d.stop_all);
  EXPECT_FALSE(d.stop_queue);
}

TEST(DecideReturn, RaiseErrorFailsTheSample) {
  auto d = decide_return(106, 0, kMaxRetries);
  EXPECT_FALSE(d.requeue);
  EXPECT_EQ(d.outcome, Outcome::kSoftFail);
  EXPECT_STREQ(d.what, "raise error");
  EXPECT_FALSE(d.stop_queue);
  EXPECT_FALSE(d.stop_all);
}

TEST(DecideReturn, AnyOtherNonZeroCodeIsASoftFail) {
  for (int code : {1, 2, 103, 107, 127, 139, 255, -1}) {
    auto d = decide_return(code, 0, kMaxRetries);
    EXPECT_FALSE(d.requeue) << code;
    EXPECT_EQ(d.outcome, Outcome::kSoftFail) << code;
    EXPECT_FALSE(d.write_finished) << code;
    EXPECT_FALSE(d.stop_queue) << code;
    EXPECT_FALSE(d.stop_all) << code;
  }
}

TEST(DecideReturn, RetryAndRestartRequeueWhileAttemptsAreBelowMaxRetries) {
  for (int code : {100, 104}) {
    for (std::uint32_t attempt = 0; attempt < kMaxRetries; ++attempt)
      EXPECT_TRUE(decide_return(code, attempt, kMaxRetries).requeue)
          << "code " << code << " attempt " << attempt;
  }
}

TEST(DecideReturn, RetryAndRestartSoftFailOnceAttemptsReachMaxRetries) {
  for (int code : {100, 104}) {
    auto d = decide_return(code, kMaxRetries, kMaxRetries);
    EXPECT_FALSE(d.requeue) << code;
    EXPECT_EQ(d.outcome, Outcome::kSoftFail) << code;
    EXPECT_STREQ(d.what, "retries exhausted") << code;
    EXPECT_FALSE(decide_return(code, kMaxRetries + 5, kMaxRetries).requeue) << code;
  }
}

TEST(DecideReturn, KilledBySignalRunsAgainWithinTheRetryBudget) {
  for (int code : {129, 130, 137, 143}) {
    auto d = decide_return(code, 0, kMaxRetries);
    EXPECT_TRUE(d.requeue) << code;
    EXPECT_TRUE(d.same_kind) << code << ": a killed restart command runs again as restart";
    EXPECT_FALSE(d.write_finished) << code;
    auto last = decide_return(code, kMaxRetries, kMaxRetries);
    EXPECT_FALSE(last.requeue) << code;
    EXPECT_EQ(last.outcome, Outcome::kSoftFail) << code;
  }
  EXPECT_FALSE(decide_return(131, 0, kMaxRetries).requeue) << "SIGQUIT: the step's own crash";
  EXPECT_FALSE(decide_return(139, 0, kMaxRetries).requeue) << "SIGSEGV: the step's own crash";
}

TEST(DecideReturn, ZeroMaxRetriesNeverRequeues) {
  EXPECT_FALSE(decide_return(104, 0, 0).requeue);
  EXPECT_FALSE(decide_return(100, 0, 0).requeue);
}

TEST(DecideTimeout, WithARestartCommandItRunsAgainWithThatCommand) {
  auto d = decide_timeout(/*has_restart=*/true, 0, kMaxRetries);
  EXPECT_TRUE(d.requeue);
  EXPECT_FALSE(d.same_kind);
  EXPECT_EQ(d.next_kind, TaskKind::kRestart);
  EXPECT_FALSE(d.write_finished);
}

TEST(DecideTimeout, WithoutARestartCommandTheSampleFailsAndTheStudyGoesOn) {
  auto d = decide_timeout(/*has_restart=*/false, 0, kMaxRetries);
  EXPECT_FALSE(d.requeue);
  EXPECT_EQ(d.outcome, Outcome::kTimedOut);
  EXPECT_TRUE(is_failure(d.outcome));
  EXPECT_FALSE(d.stop_queue);
  EXPECT_FALSE(d.stop_all);
  EXPECT_FALSE(d.write_finished);
}

TEST(DecideTimeout, RestartsCountAgainstMaxRetries) {
  EXPECT_TRUE(decide_timeout(true, kMaxRetries - 1, kMaxRetries).requeue);
  auto d = decide_timeout(true, kMaxRetries, kMaxRetries);
  EXPECT_FALSE(d.requeue);
  EXPECT_EQ(d.outcome, Outcome::kTimedOut);
  EXPECT_FALSE(decide_timeout(true, 0, 0).requeue);
}

TEST(DecideTimeout, TheExitCodeOfTheKilledStepDoesNotMatter) {
  // A step killed by the walltime's SIGTERM exits 143, which decide_return would retry; the
  // timeout rule is what decides.
  EXPECT_TRUE(decide_return(143, 0, kMaxRetries).requeue);
  EXPECT_FALSE(decide_timeout(false, 0, kMaxRetries).requeue);
}

TEST(WalltimeMessage, SaysHoursMinutesAndSeconds) {
  EXPECT_EQ(walltime_message(2), "merlin: step killed after its walltime 00:00:02");
  EXPECT_EQ(walltime_message(3 * 3600 + 4 * 60 + 5),
            "merlin: step killed after its walltime 03:04:05");
  EXPECT_EQ(walltime_message(100 * 3600), "merlin: step killed after its walltime 100:00:00");
}

}  // namespace
}  // namespace merlin
