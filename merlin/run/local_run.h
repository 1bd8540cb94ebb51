#pragma once
/// `merlin run --local` and `merlin restart`: the in-process broker, the journal-backed state
/// store, the plan and a Worker with N slots, plus progress lines and the live-status file.
#include <chrono>
#include <cstdint>
#include <memory>

#include "merlin/core/broker/state_store.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/step_executors.h"
#include "workers/process_executor.h"
#include "workers/worker.h"

namespace merlin::run {

struct LocalRunOptions {
  int slots = 1;
  bool resume = false;   ///< replay merlin_info/merlin.journal first (restart)
  bool progress = true;  ///< progress lines on stderr
  /// After the second interrupt: SIGTERM to running steps, SIGKILL this much later.
  std::chrono::milliseconds kill_wait = kDefaultKillWait;
  ExecutorFactory executor = process_executor;  ///< the steps' executor (tests pass a fake)
};

struct LocalRunResult {
  WorkerReport report;
  std::vector<InstanceProgress> progress;
  std::uint64_t total = 0, done = 0, failed = 0;
  double seconds = 0;
};

Result<LocalRunResult> run_local(PreparedStudy& study, const LocalRunOptions& options);

/// Per-instance progress of a workspace from its journal (status of a local run).
Result<std::vector<InstanceProgress>> journal_progress(const PreparedStudy& study);

/// The local run's progress store rebuilt from its journal, tuned instances and their trials'
/// results included (`merlin status`: the progress and the searches' standings).
Result<std::unique_ptr<StateStore>> journal_store(const PreparedStudy& study);

/// Per-instance running counts from merlin_info/status.live, if its writer is still alive.
std::vector<std::uint32_t> live_running(const PreparedStudy& study);

}  // namespace merlin::run
