#pragma once
/// The workers one `merlin run-workers` process runs: it finds the studies queued from a spec,
/// serves them one at a time with a `Worker` per `merlin.resources.workers` entry, keeps their
/// heartbeats, obeys signals, `stop-workers` and step-requested stops (MERLIN_HARD_FAIL,
/// MERLIN_STOP_WORKERS) from any process of the study, and logs progress.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/broker/backend.h"
#include "merlin/core/broker/broker_location.h"
#include "merlin/run/run_workers_options.h"
#include "merlin/run/step_executors.h"
#include "workers/process_executor.h"
#include "workers/worker.h"

namespace merlin::run {

/// One `merlin.resources.workers` entry, as this process will run it.
struct WorkerPlan {
  std::string name;
  std::vector<std::string> queues;
  int slots = 1;
  std::string id;  ///< "<host>.<pid>.<name>": consumer name and registry id
};

struct FleetOptions {
  /// The command's options: the lease (renewed every third of it), --exit-when-done (return
  /// once no study has work for us), --max-deliveries, --kill-wait (after the second signal:
  /// SIGTERM to running steps, SIGKILL this much later).
  RunWorkersOptions given;
  /// The spec's OUTPUT_PATH: its workspaces tell which studies the broker lost.
  std::string output_path;
  std::chrono::milliseconds progress_every{10'000};  ///< progress line period (0 = never)
  /// When to drain and stop (the allocation's end less a margin); none = never.
  std::optional<std::chrono::steady_clock::time_point> drain_at;
  /// Makes each worker's step executor (tests pass a fake).
  ExecutorFactory executor = process_executor;
  std::string app_scratch;  ///< app.yaml's `scratch:` (ScratchSettings::app_scratch)
};

/// This machine's name, for worker ids and heartbeats.
std::string host_name();
/// The batch job this process runs in (the first scheduler's job id variable that is set:
/// SLURM_JOB_ID, FLUX_JOB_ID, LSB_JOBID, PBS_JOBID), or "".
std::string batch_job_id();

/// Serves the studies named `spec_name` in `backend` until stopped, or until none has work left
/// for these workers (exit_when_done). Returns the process exit code.
int run_fleet(Backend& backend, const std::string& spec_name, const std::vector<WorkerPlan>& plans,
              const FleetOptions& options);

}  // namespace merlin::run
