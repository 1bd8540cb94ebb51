#pragma once
/// `merlin run-workers` for workers whose batch type is a scheduler (slurm, flux, lsf,
/// lsf-srun): outside an allocation each becomes a submitted job script; inside one, the
/// scheduler's launcher starts one worker process per node. Either way the process that
/// runs the workers is `merlin run-workers ... --here`.
#include <chrono>
#include <string>
#include <vector>

#include "merlin/batch/worker_job.h"
#include "merlin/broker/worker_registry.h"
#include "merlin/run/worker_fleet.h"
#include "merlin/spec/study_spec.h"
#include "merlin/study/study_tokens.h"
#include "merlin/util/result.h"

namespace merlin::run {

/// What the per-node `run-workers --here` command carries over from this one.
struct HereCommand {
  std::string study_name;  ///< for job names: merlin_<study>_<worker>
  std::string exe;         ///< this merlin binary, absolute
  std::string spec;        ///< absolute
  std::vector<std::string> vars, steps;
  double lease_seconds = 60;
  double dead_after_seconds = std::chrono::duration<double>(kDefaultDeadAfter).count();
  double drain_margin = 60;
  int array = 0;  ///< --array: each worker job as an array of that many
  int max_deliveries = kDefaultMaxDeliveries;
  double kill_wait = std::chrono::duration<double>(kDefaultKillWait).count();  ///< --kill-wait
  std::string log_level = "info";  ///< passed on when not info (--log-level, --disable-logs)
};

/// The workers of `plans` that run under a scheduler, as jobs (the rest run here). Errors
/// (kBadInput): a worker's `nodes` that is not a positive number, named with its spec line.
/// `tokens` substitute the spec's variables in `nodes`.
Result<std::vector<batch::WorkerJob>> scheduler_jobs(const spec::StudySpec& spec,
                                                     const StudyTokens& tokens,
                                                     const std::vector<WorkerPlan>& plans,
                                                     const HereCommand& here,
                                                     const std::string& log_dir);

/// Writes each job's script into its log_dir and submits it; one line per job on stdout
/// ("worker W: slurm job 123, script S, log L"). Returns the exit code: 0, or 1 if a
/// submission failed (the scheduler's words on stderr).
int submit_jobs(const std::vector<batch::WorkerJob>& jobs);

/// Inside an allocation: runs every job's node_launch line (through the batch shell), waits
/// for them all, returns 0 if all exited 0, else the first non-zero code.
int launch_jobs_here(const std::vector<batch::WorkerJob>& jobs);

/// The batch type's scheduler name for messages: "slurm", "flux", "lsf", "pbs".
std::string scheduler_name(const std::string& batch_type);

}  // namespace merlin::run
