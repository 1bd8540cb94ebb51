#pragma once
/// Merlin's return-code protocol as a pure decision: what to do after a step exits.
#include <cstdint>

#include "merlin/broker/state_store.h"
#include "merlin/study/task_kind.h"

namespace merlin {

enum class StepReturn : int {
  kSuccess = 0,
  kRestart = 100,
  kSoftFail = 101,
  kHardFail = 102,
  kRetry = 104,
  kStopWorkers = 105,
  kRaiseError = 106,
};

struct StepDecision {
  bool requeue = false;  ///< run again after retry_delay (then no commit)
  TaskKind next_kind = TaskKind::kCmd;
  Outcome outcome = Outcome::kSuccess;  ///< when not requeued: what to commit
  bool stop_queue = false;              ///< hard fail: stop the workers of this step's queue
  bool stop_all = false;                ///< MERLIN_STOP_WORKERS
  bool write_finished = false;          ///< MERLIN_FINISHED marker
  const char* what = "success";         ///< for the log line
};

/// `attempt` counts previous runs of this task (0 on the first run).
/// Restart/retry requeue while attempt < max_retries, then soft-fail. Any unknown non-zero
/// code is a soft fail; 106 (raise error) fails the sample and is logged as an error.
StepDecision decide_return(int exit_code, std::uint32_t attempt, int max_retries);

}  // namespace merlin
