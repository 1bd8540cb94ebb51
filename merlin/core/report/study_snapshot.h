#pragma once
/// What `merlin monitor --web` shows of one study at one moment: per-step progress with rates
/// and ETAs, the totals, the newest failures, the workers and the throughput series. Plain
/// data, made by `StudyWatch` (merlin/run/study_watch.h) and turned into JSON by adapters/web,
/// which sees this header and nothing of the run layer.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/report/json_writer.h"

namespace merlin::report {

/// One row of `merlin status` (run::step_status computes them).
struct StepStatus {
  std::string step;
  std::uint32_t instances = 0;
  std::uint64_t total = 0;
  std::uint64_t done = 0;     ///< finished successfully
  std::uint64_t failed = 0;   ///< finished with a failure (soft or hard)
  std::uint64_t running = 0;  ///< running now (a live local run)
  std::uint64_t queued = 0;   ///< not finished, not running
  double mean_seconds = 0;    ///< over finished samples
  /// Fan-out instances not released yet (docs/fanout.md): their samples are not in `total`.
  std::uint32_t count_unknown = 0;
};

/// One sample of the finished count (run::ThroughputHistory keeps them).
struct ThroughputPoint {
  std::int64_t at_ms = 0;      ///< epoch milliseconds of the sample
  std::uint64_t finished = 0;  ///< done + failed over all steps then
};

struct StepSnapshot {
  StepStatus status;          ///< the row `merlin status` shows
  double rate = 0;            ///< tasks finished per second over the last minute
  std::optional<double> eta;  ///< seconds until the step's queued and running tasks finish
};

struct FailureSnapshot {
  std::string step;
  std::uint64_t sample = 0;
  std::string dir;             ///< the task's directory, relative to the workspace
  std::string instance;        ///< its step instance's directory (`sim`, `sim/N.10`)
  std::string return_code;     ///< "MERLIN_SOFT_FAIL", ...; "" when no journal recorded it
  std::uint32_t ended_at = 0;  ///< epoch seconds; 0 = unknown
  std::string worker;          ///< "" for a local run
  /// The `.err`, relative to the workspace; "" in a lean workspace, whose logs `logs_command`
  /// prints instead.
  std::string err_file;
  std::string logs_command;  ///< `merlin logs WS STEP SAMPLE --err` (lean); "" otherwise
};

struct WorkerSnapshot {
  std::string name, host;
  int pid = 0;
  std::vector<std::string> queues;
  int concurrency = 0;
  std::string batch_job;     ///< "" when it runs outside a batch job
  std::string study;         ///< the study key it works on now; "" while waiting
  double heartbeat_age = 0;  ///< seconds since its last heartbeat
  bool alive = true;         ///< heartbeat younger than the dead-after time
};

struct StudySnapshot {
  std::string study_name, workspace;
  bool distributed = false;  ///< queued in a broker (else a local run, from its journal)
  bool lean = false;
  std::string broker;            ///< the broker's address, masked; "" for a local run
  std::int64_t taken_at_ms = 0;  ///< epoch milliseconds
  std::vector<StepSnapshot> steps;
  StepSnapshot totals;  ///< sums over the steps; its `status.step` is "total"
  std::uint64_t failed_total = 0;
  std::vector<FailureSnapshot> failures;  ///< the newest first, at most the watch's limit
  std::string failures_error;             ///< why `failures` could not be read ("" when it was)
  std::vector<WorkerSnapshot> workers;    ///< those serving this study's spec
  std::vector<ThroughputPoint> throughput;
  /// Each search's leaderboard (docs/tuning.md), as `merlin status --format json` has it
  /// (run::search_object): its counts, its leader and its best trials.
  std::vector<Object> searches;
  std::string error;  ///< the last refresh's failure ("" when it worked): the page shows it
};

}  // namespace merlin::report
