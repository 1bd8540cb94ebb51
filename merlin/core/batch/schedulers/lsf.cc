// LSF: `bsub < script` jobs with #BSUB directives and jsrun for workers and steps; and
// lsf-srun, LSF's jobs with Slurm's srun inside (as on some LLNL machines).
#include <fmt/format.h>

#include "merlin/core/batch/scheduler.h"
#include "merlin/core/batch/scheduler_text.h"

namespace merlin::batch {

const Scheduler& slurm_scheduler();

namespace {

class Lsf : public Scheduler {
 public:
  std::string_view type() const override { return "lsf"; }
  std::string step_launcher(const LaunchResources& r, const LaunchCounts& c) const override {
    // One resource set per node, ranks spread evenly (plane = ranks per node).
    std::string s = fmt::format("jsrun --np {} --nrs {} -b rs -d plane:{} -X 1", c.procs, c.nodes,
                                c.per_node);
    if (r.cores_per_task > 0) s += " -c " + c.cores;
    if (r.gpus_per_task > 0) s += fmt::format(" -g {}", r.gpus_per_task);
    return s;
  }
  std::string script_extension() const override { return ".bsub"; }
  Result<std::vector<std::string>> job_directives(const WorkerJob& job, std::optional<long> wall,
                                                  const std::string& log) const override {
    const auto& b = job.batch;
    std::vector<std::string> head;
    head.push_back("#BSUB -J " + job.job_name +
                   (job.array > 1 ? fmt::format("[1-{}]", job.array) : std::string()));
    head.push_back(fmt::format("#BSUB -nnodes {}", job.nodes));
    if (wall) head.push_back(fmt::format("#BSUB -W {}", (*wall + 59) / 60));  // minutes
    if (!b.queue.empty()) head.push_back("#BSUB -q " + b.queue);
    if (!b.bank.empty()) head.push_back("#BSUB -G " + b.bank);
    head.push_back("#BSUB -o " + log + job.worker + (job.array > 1 ? "-%J_%I.out" : "-%J.out"));
    return head;
  }
  std::string node_launcher(const WorkerJob& job) const override {
    return fmt::format("jsrun -a 1 -c ALL_CPUS -g ALL_GPUS --bind=none -n {}", job.nodes);
  }
  std::vector<std::string> submit_command() const override { return {"bsub"}; }
  bool submit_reads_stdin() const override { return true; }
  std::optional<std::string> job_id(std::string_view out) const override {
    return lsf_job_id(out);
  }
  const char* allocation_variable() const override { return "LSB_JOBID"; }
};

const Lsf& lsf() {
  static const Lsf s;
  return s;
}

// LSF's jobs, Slurm's launcher and allocation.
class LsfSrun : public Lsf {
 public:
  std::string_view type() const override { return "lsf-srun"; }
  std::string_view name() const override { return "lsf"; }
  std::string_view flags_key() const override { return "slurm"; }
  std::string step_launcher(const LaunchResources& r, const LaunchCounts& c) const override {
    return slurm_scheduler().step_launcher(r, c);
  }
  std::string node_launcher(const WorkerJob& job) const override {
    return fmt::format("srun --mpi=none --overlap -N {} -n {}", job.nodes, job.nodes);
  }
  const char* allocation_variable() const override { return "SLURM_JOB_ID"; }
  std::vector<std::string> time_left_command(const std::string& job_id) const override {
    return slurm_scheduler().time_left_command(job_id);
  }
  std::optional<long> time_left(std::string_view out) const override {
    return slurm_scheduler().time_left(out);
  }
};

}  // namespace

const Scheduler& lsf_scheduler() { return lsf(); }

const Scheduler& lsf_srun_scheduler() {
  static const LsfSrun s;
  return s;
}

}  // namespace merlin::batch
