#pragma once
/// `merlin run-workers` for workers whose batch type is a scheduler (slurm, flux, lsf,
/// lsf-srun): outside an allocation each becomes a submitted job script; inside one, the
/// scheduler's launcher starts one worker process per node. Either way the process that
/// runs the workers is `merlin run-workers ... --here`.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/batch/worker_job.h"
#include "merlin/run/run_workers_options.h"
#include "merlin/run/worker_fleet.h"
#include "merlin/core/spec/study_spec.h"
#include "merlin/core/study/study_tokens.h"
#include "merlin/core/util/process_info.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// What a worker job needs besides the options of the `run-workers` that makes it.
struct JobContext {
  std::string study_name;  ///< for job names: merlin_<study>_<worker>
  std::string exe;         ///< this merlin binary, absolute
  std::string spec;        ///< the spec, absolute
  std::string log_dir;     ///< where job scripts and their logs go
};

/// The options of the `run-workers --here --exit-when-done` a batch job runs for `plan`'s
/// worker: `o`'s vars, steps and worker settings, `plan`'s name and slots, the absolute spec;
/// nothing that only this process acts on (--echo, --array, --worker-args, --disable-logs,
/// which `o.log_level` already carries).
RunWorkersOptions job_options(const RunWorkersOptions& o, const WorkerPlan& plan,
                              const std::string& spec);

/// The workers of `plans` that run under a scheduler, as jobs (the rest run here); each job's
/// command is `exe` and run_workers_argv of its job_options. Errors (kBadInput): a worker's
/// `nodes` that is not a positive number, named with its spec line. `tokens` substitute the
/// spec's variables in `nodes`.
Result<std::vector<batch::WorkerJob>> scheduler_jobs(const spec::StudySpec& spec,
                                                     const StudyTokens& tokens,
                                                     const std::vector<WorkerPlan>& plans,
                                                     const RunWorkersOptions& o,
                                                     const JobContext& context);

/// Where the workers of one `run-workers` run.
struct WorkerPlacement {
  std::vector<batch::WorkerJob> here;    ///< inside an allocation: launched per node from here
  std::vector<batch::WorkerJob> submit;  ///< outside one: submitted as batch jobs
  std::vector<WorkerPlan> local;         ///< no scheduler: run in this process
};

/// Splits `plans` (scheduler_jobs) into jobs to launch here, jobs to submit and workers to run
/// in this process; `inside(batch_type)` tells whether this process runs in an allocation of
/// that scheduler.
Result<WorkerPlacement> place_workers(const spec::StudySpec& spec, const StudyTokens& tokens,
                                      std::vector<WorkerPlan> plans, const RunWorkersOptions& o,
                                      const JobContext& context,
                                      const std::function<bool(const std::string&)>& inside);

/// place_workers inside the allocations this process runs in (inside_allocation).
Result<WorkerPlacement> place_workers(const spec::StudySpec& spec, const StudyTokens& tokens,
                                      std::vector<WorkerPlan> plans, const RunWorkersOptions& o,
                                      const JobContext& context);

/// What `run-workers --echo` prints for the jobs: each node launch line of `here`, then each
/// job script of `submit`. Errors: a script that cannot be rendered.
Result<std::string> echo_text(const WorkerPlacement& placement);

/// When workers running in an allocation drain before its time limit.
struct DrainPlan {
  long left = 0;      ///< seconds the allocation has left
  long drain_in = 0;  ///< seconds from now to drain: `margin` before its end, 0 if less is left
};
/// The drain for `margin` seconds (--drain-margin) and `seconds_left` of the allocation; none
/// when the margin is 0 or the time left is not known. Pure.
std::optional<DrainPlan> drain_plan(double margin, std::optional<long> seconds_left);
/// drain_plan for the allocation this process runs in (asks its scheduler only when `margin`
/// is positive).
std::optional<DrainPlan> allocation_drain_plan(double margin);

/// Writes each job's script into its log_dir and submits it, the scheduler's command run with
/// `env` added to our environment (the job inherits it); one line per job on stdout ("worker
/// W: slurm job 123, script S, log L"). Returns the exit code: 0, or 1 if a submission failed
/// (the scheduler's words on stderr).
int submit_jobs(const std::vector<batch::WorkerJob>& jobs, const EnvOverrides& env = {});

/// Inside an allocation: runs every job's node_launch line (through the batch shell, with `env`
/// added to our environment), waits for them all, returns 0 if all exited 0, else the first
/// non-zero code.
int launch_jobs_here(const std::vector<batch::WorkerJob>& jobs, const EnvOverrides& env = {});

/// The batch type's scheduler name for messages: "slurm", "flux", "lsf", "pbs".
std::string scheduler_name(const std::string& batch_type);

}  // namespace merlin::run
