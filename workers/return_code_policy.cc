#include "workers/return_code_policy.h"

#include <cstdio>

namespace merlin {

StepDecision decide_return(int exit_code, std::uint32_t attempt, int max_retries) {
  StepDecision d;
  bool budget = static_cast<int>(attempt) < max_retries;
  switch (static_cast<StepReturn>(exit_code)) {
    case StepReturn::kSuccess:
      d.write_finished = true;
      return d;
    case StepReturn::kRestart:
    case StepReturn::kRetry:
      if (budget) {
        d.requeue = true;
        d.next_kind = exit_code == 100 ? TaskKind::kRestart : TaskKind::kCmd;
        d.what = exit_code == 100 ? "restart" : "retry";
      } else {
        d.outcome = Outcome::kSoftFail;
        d.what = "retries exhausted";
      }
      return d;
    case StepReturn::kHardFail:
      d.outcome = Outcome::kHardFail;
      d.stop_queue = true;
      d.what = "hard fail";
      return d;
    case StepReturn::kStopWorkers:
      d.outcome = Outcome::kStopped;
      d.stop_all = true;
      d.what = "stop workers";
      return d;
    case StepReturn::kRaiseError:
      d.outcome = Outcome::kSoftFail;
      d.what = "raise error";
      return d;
    case StepReturn::kKilledHup:
    case StepReturn::kKilledInt:
    case StepReturn::kKilled:
    case StepReturn::kKilledTerm:
      if (budget) {
        d.requeue = true;
        d.same_kind = true;
        d.what = "killed by a signal: runs again";
      } else {
        d.outcome = Outcome::kSoftFail;
        d.what = "killed by a signal, retries exhausted";
      }
      return d;
    case StepReturn::kSoftFail:
    default:
      d.outcome = Outcome::kSoftFail;
      d.what = "soft fail";
      return d;
  }
}

StepDecision decide_timeout(bool has_restart, std::uint32_t attempt, int max_retries) {
  StepDecision d;
  if (has_restart && static_cast<int>(attempt) < max_retries) {
    d.requeue = true;
    d.next_kind = TaskKind::kRestart;
    d.what = "timed out: runs its restart command";
    return d;
  }
  d.outcome = Outcome::kTimedOut;
  d.what = has_restart ? "timed out, retries exhausted" : "timed out";
  return d;
}

std::string walltime_message(long seconds) {
  if (seconds < 0) seconds = 0;
  char buf[80];
  std::snprintf(buf, sizeof buf, "merlin: step killed after its walltime %02ld:%02ld:%02ld",
                seconds / 3600, seconds / 60 % 60, seconds % 60);
  return buf;
}

}  // namespace merlin
