#pragma once
/// The watched study of `merlin monitor --web`: each `refresh` reads its progress, running
/// tasks, failures and workers through the same functions as `status`, `detailed-status` and
/// `query-workers` (step_status, list_tasks, the WorkerRegistry), and keeps the throughput
/// history the rates, ETAs and the plot come from. Not thread-safe: one refresher calls it and
/// hands the snapshots on.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "merlin/core/broker/backend.h"
#include "merlin/core/broker/worker_registry.h"
#include "merlin/core/plan/plan.h"
#include "merlin/core/report/study_snapshot.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/throughput.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

using report::FailureSnapshot;
using report::StepSnapshot;
using report::StudySnapshot;
using report::WorkerSnapshot;

struct StudyWatchOptions {
  std::size_t max_failures = 50;         ///< the newest failures listed
  std::int64_t rate_window_ms = 60'000;  ///< a step's rate: over this much history
  /// a worker silent longer than this is shown as lost (is_alive)
  std::chrono::milliseconds dead_after = kDefaultDeadAfter;
  std::size_t max_points = 1800;  ///< throughput samples kept (one per refresh)
  std::size_t search_trials = 10;  ///< each search's best trials in the snapshot (0: all)
};

class StudyWatch {
 public:
  /// `study`: the workspace reopened without samples (open_for_status). `backend`: the
  /// broker the study is queued in (must outlive the watch), or null for a local run, read
  /// from its journal and `status.live`. `broker_display`: its masked address.
  StudyWatch(std::unique_ptr<PreparedStudy> study, std::string workspace, Backend* backend,
             std::string broker_display, StudyWatchOptions options = {});

  /// A snapshot at `now_ms` (epoch milliseconds, also the throughput sample's time). Errors
  /// are the broker's or the journal's (local run); the history is unchanged then. The
  /// failures list failing to read is not an error: `failures_error` says why.
  Result<StudySnapshot> refresh(std::int64_t now_ms);

  const std::string& workspace() const { return workspace_; }
  /// The study, read only: safe to use from other threads while `refresh` runs.
  const PreparedStudy& study() const { return *study_; }
  bool lean() const;

 private:
  Result<std::vector<FailureSnapshot>> failures();

  std::unique_ptr<PreparedStudy> study_;
  std::string workspace_;
  Backend* backend_;
  std::string broker_display_;
  StudyWatchOptions options_;
  Plan plan_;
  ThroughputHistory history_;
  // The failures are read from every task journal (O(tasks)): only again when the failed
  // count changed.
  std::uint64_t failures_read_at_ = ~std::uint64_t{0};
  bool reread_ = false;
  std::string failures_error_;
  std::vector<FailureSnapshot> failures_;
};

}  // namespace merlin::run
