// PBS Pro / OpenPBS: `qsub` jobs with #PBS directives (one exclusive chunk per node), mpiexec
// (MPICH/Cray PALS style `-ppn`) for workers and steps, qstat for the time left. The job starts
// in $HOME, so the script goes back to the submit directory first.
#include <fmt/format.h>

#include "merlin/core/batch/scheduler.h"
#include "merlin/core/batch/scheduler_text.h"

namespace merlin::batch {
namespace {

class Pbs : public Scheduler {
 public:
  std::string_view type() const override { return "pbs"; }
  std::string step_launcher(const LaunchResources& r, const LaunchCounts& c) const override {
    std::string s = fmt::format("mpiexec -n {} -ppn {}", c.procs, c.per_node);
    if (r.cores_per_task > 0) s += " --depth " + c.cores;
    return s;
  }
  std::string script_extension() const override { return ".pbs"; }
  Result<std::vector<std::string>> job_directives(const WorkerJob& job, std::optional<long> wall,
                                                  const std::string& log) const override {
    const auto& b = job.batch;
    std::vector<std::string> head;
    head.push_back("#PBS -N " + job.job_name);
    head.push_back(fmt::format("#PBS -l select={}", job.nodes));
    head.push_back("#PBS -l place=scatter:excl");  // a node each, its cores for the steps
    if (wall) head.push_back("#PBS -l walltime=" + hms(*wall));
    if (!b.queue.empty()) head.push_back("#PBS -q " + b.queue);
    if (!b.bank.empty()) head.push_back("#PBS -A " + b.bank);
    if (job.array > 1) head.push_back(fmt::format("#PBS -J 1-{}", job.array));
    head.push_back("#PBS -j oe");
    head.push_back("#PBS -o " + log + job.worker +
                   (job.array > 1 ? "-^array_index^.out" : ".out"));
    return head;
  }
  std::vector<std::string> job_preamble() const override {
    return {"cd \"$PBS_O_WORKDIR\" || exit 1"};
  }
  std::string node_launcher(const WorkerJob& job) const override {
    return fmt::format("mpiexec -n {} -ppn 1", job.nodes);
  }
  std::vector<std::string> submit_command() const override { return {"qsub"}; }
  std::optional<std::string> job_id(std::string_view out) const override {
    return pbs_job_id(out);
  }
  const char* allocation_variable() const override { return "PBS_JOBID"; }
  std::vector<std::string> time_left_command(const std::string& job_id) const override {
    return {"qstat", "-f", job_id};
  }
  std::optional<long> time_left(std::string_view out) const override {
    return pbs_time_left(out);
  }
};

}  // namespace

const Scheduler& pbs_scheduler() {
  static const Pbs s;
  return s;
}

}  // namespace merlin::batch
