#pragma once
/// Merlin's return-code protocol as a pure decision: what to do after a step exits.
#include <cstdint>
#include <string>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/study/task_kind.h"

namespace merlin {

enum class StepReturn : int {
  kSuccess = 0,
  kRestart = 100,
  kSoftFail = 101,
  kHardFail = 102,
  kRetry = 104,
  kStopWorkers = 105,
  kRaiseError = 106,
  // Killed from outside (the shell's 128 + signal): a cancelled job, a node going away, an
  // operator's kill. Not the step's verdict: it runs again (counts against max_retries).
  kKilledHup = 129,
  kKilledInt = 130,
  kKilled = 137,
  kKilledTerm = 143,
};

struct StepDecision {
  bool requeue = false;  ///< run again after retry_delay (then no commit)
  TaskKind next_kind = TaskKind::kCmd;
  bool same_kind = false;               ///< requeue the command that was running (cmd or restart)
  Outcome outcome = Outcome::kSuccess;  ///< when not requeued: what to commit
  bool stop_queue = false;              ///< hard fail: stop the workers of this step's queue
  bool stop_all = false;                ///< MERLIN_STOP_WORKERS
  bool write_finished = false;          ///< MERLIN_FINISHED marker
  const char* what = "success";         ///< for the log line
};

/// `attempt` counts previous runs of this task (0 on the first run).
/// Restart/retry requeue while attempt < max_retries, then soft-fail; so do steps killed by
/// SIGHUP, SIGINT, SIGKILL or SIGTERM (exit 129, 130, 137, 143), where Merlin would record a
/// soft fail: a cancelled allocation must not fail the samples it was running. Any other
/// non-zero code is a soft fail; 106 (raise error) fails the sample and is logged as an error.
StepDecision decide_return(int exit_code, std::uint32_t attempt, int max_retries);

/// A step ended by merlin after its `walltime` (ExecResult::timed_out), whatever its exit
/// code. As Maestro does with a timed-out step: with a `restart:` command it runs again with
/// that command while attempt < max_retries (the RESTART path); without one, or with the
/// retries spent, the sample fails as a soft fail does (Outcome::kTimedOut: dependents go
/// on, status and the exit code count it failed).
StepDecision decide_timeout(bool has_restart, std::uint32_t attempt, int max_retries);

/// The line added to a timed-out step's stderr: "merlin: step killed after its walltime
/// HH:MM:SS" (hours not capped at 24).
std::string walltime_message(long seconds);

}  // namespace merlin
