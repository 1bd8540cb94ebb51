#pragma once
/// One batch system as merlin uses it, in text: the `$(LAUNCHER)` of a step, a worker job's
/// script (its directives, how it starts one worker per node), how it is submitted and what the
/// submit command prints, how a process tells it runs inside an allocation, and how long that
/// allocation has left. Pure: the side effects (running sbatch, squeue) are in
/// adapters/scheduler, driven by these descriptions. A scheduler is one file in
/// merlin/core/batch/schedulers/ plus its line in scheduler_table.cc (see docs/architecture.md).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/batch/launch_resources.h"
#include "merlin/core/batch/worker_job.h"
#include "merlin/core/util/result.h"

namespace merlin::batch {

/// The counts of a `$(LAUNCHER)` line as text: numbers, or `${MERLIN_NODES}`-style variables
/// for `$(VLAUNCHER)`. `per_node`: processes per node.
struct LaunchCounts {
  std::string nodes, procs, cores, gpus, per_node;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// The spec's `batch: type` ("slurm", "lsf-srun", ...).
  virtual std::string_view type() const = 0;
  /// The name users know it by, for messages ("lsf" for lsf-srun).
  virtual std::string_view name() const { return type(); }
  /// The step key (`slurm:`, `flux:`, `lsf:`) whose flags its `$(LAUNCHER)` takes.
  virtual std::string_view flags_key() const { return type(); }
  /// `$(LAUNCHER)` without the step's extra flags, e.g. "srun -n 4 -N 2".
  virtual std::string step_launcher(const LaunchResources& r, const LaunchCounts& c) const = 0;

  /// False for `local`: its workers run where `run-workers` runs, and the job calls below
  /// are not made.
  virtual bool has_jobs() const { return true; }
  /// The worker job script's file extension (".sbatch").
  virtual std::string script_extension() const = 0;
  /// The directive lines at the top of a worker job's script. `wall`: its walltime in seconds;
  /// `log_prefix`: the log directory with a trailing '/', or "". Errors (kBadInput) name what
  /// the scheduler cannot do (a job array on flux).
  virtual Result<std::vector<std::string>> job_directives(const WorkerJob& job,
                                                          std::optional<long> wall,
                                                          const std::string& log_prefix) const = 0;
  /// Lines the script runs before the workers (PBS starts jobs in $HOME: back to the submit
  /// directory, where the spec's relative paths start).
  virtual std::vector<std::string> job_preamble() const { return {}; }
  /// The launcher that starts one process per node of the allocation.
  virtual std::string node_launcher(const WorkerJob& job) const = 0;
  /// The submit command before the script's path ("sbatch --parsable").
  virtual std::vector<std::string> submit_command() const = 0;
  /// Whether the script goes to the submit command's stdin (bsub) instead of as an argument.
  virtual bool submit_reads_stdin() const { return false; }
  /// The job id in the submit command's stdout; nullopt if there is none.
  virtual std::optional<std::string> job_id(std::string_view submit_output) const = 0;
  /// The environment variable that is set (non-empty) inside one of its allocations, holding
  /// the job id; "" for none.
  virtual const char* allocation_variable() const = 0;
  /// The environment variable holding the job id inside one of its allocations (what a worker
  /// reports as its job); the allocation variable unless that holds something else.
  virtual const char* job_id_variable() const { return allocation_variable(); }
  /// The command that prints how long allocation `job_id` has left ({}: it cannot tell), and
  /// the reading of its output as seconds (nullopt: no limit, or unreadable).
  virtual std::vector<std::string> time_left_command(const std::string& job_id) const {
    return {};
  }
  virtual std::optional<long> time_left(std::string_view output) const { return std::nullopt; }
};

/// Every scheduler, `local` first: the batch types a spec may name.
const std::vector<const Scheduler*>& schedulers();
/// The scheduler of batch type `type`; nullptr for a type that is none of them.
const Scheduler* find_scheduler(std::string_view type);

/// "01:02:03" for 3723 seconds (hours may exceed 24).
std::string hms(long seconds);

}  // namespace merlin::batch
