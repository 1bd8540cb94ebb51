// Slurm: `sbatch --parsable` jobs with #SBATCH directives, srun for workers and steps, squeue's
// %L for the time left.
#include <fmt/format.h>

#include "merlin/core/batch/scheduler.h"
#include "merlin/core/batch/scheduler_text.h"

namespace merlin::batch {
namespace {

class Slurm : public Scheduler {
 public:
  std::string_view type() const override { return "slurm"; }
  std::string step_launcher(const LaunchResources& r, const LaunchCounts& c) const override {
    std::string s = fmt::format("srun -n {} -N {}", c.procs, c.nodes);
    if (r.cores_per_task > 0) s += " -c " + c.cores;
    if (r.walltime_seconds > 0) s += " -t " + hms(r.walltime_seconds);
    return s;
  }
  std::string script_extension() const override { return ".sbatch"; }
  Result<std::vector<std::string>> job_directives(const WorkerJob& job, std::optional<long> wall,
                                                  const std::string& log) const override {
    const auto& b = job.batch;
    std::vector<std::string> head;
    head.push_back("#SBATCH --job-name=" + job.job_name);
    head.push_back(fmt::format("#SBATCH --nodes={}", job.nodes));
    head.push_back("#SBATCH --exclusive");  // the node's cores are for the worker's steps
    if (wall) head.push_back("#SBATCH --time=" + hms(*wall));
    if (!b.queue.empty()) head.push_back("#SBATCH --partition=" + b.queue);
    if (!b.bank.empty()) head.push_back("#SBATCH --account=" + b.bank);
    if (job.array > 1) head.push_back(fmt::format("#SBATCH --array=1-{}", job.array));
    head.push_back("#SBATCH --output=" + log + job.worker +
                   (job.array > 1 ? "-%A_%a.out" : "-%j.out"));
    // Burst-buffer requests (`bb:`), after the #SBATCH lines as Slurm's burst_buffer plugins
    // read them: `#BB ...` (Lua/datawarp), or verbatim when already a directive (`#DW ...`).
    for (const auto& line : b.bb) head.push_back(line.rfind('#', 0) == 0 ? line : "#BB " + line);
    return head;
  }
  std::string node_launcher(const WorkerJob& job) const override {
    // --overlap: the worker step shares its node with the steps it launches ($(LAUNCHER));
    // without it those wait forever for the CPUs and memory the worker step holds.
    std::string s = fmt::format("srun --mpi=none --overlap -N {} -n {}", job.nodes, job.nodes);
    if (!job.batch.queue.empty()) s += " -p " + job.batch.queue;
    return s;
  }
  std::vector<std::string> submit_command() const override { return {"sbatch", "--parsable"}; }
  std::optional<std::string> job_id(std::string_view out) const override {
    return slurm_job_id(out);
  }
  const char* allocation_variable() const override { return "SLURM_JOB_ID"; }
  std::vector<std::string> time_left_command(const std::string& job_id) const override {
    return {"squeue", "-h", "-j", job_id, "-o", "%L"};
  }
  std::optional<long> time_left(std::string_view out) const override {
    return slurm_time_left(out);
  }
};

}  // namespace

const Scheduler& slurm_scheduler() {
  static const Slurm s;
  return s;
}

}  // namespace merlin::batch
