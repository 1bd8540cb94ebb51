// Flux: `flux batch` jobs with #flux: directives, `flux run` for workers and steps.
#include <fmt/format.h>

#include "merlin/core/batch/scheduler.h"
#include "merlin/core/batch/scheduler_text.h"

namespace merlin::batch {
namespace {

class Flux : public Scheduler {
 public:
  std::string_view type() const override { return "flux"; }
  std::string step_launcher(const LaunchResources& r, const LaunchCounts& c) const override {
    // `-c` only for a step with `cores per task` (or in $(VLAUNCHER)), as Merlin writes it:
    // its flux adapter passes the flags of the keys a step has.
    std::string s = fmt::format("flux run -n {} -N {}", c.procs, c.nodes);
    if (r.cores_per_task > 0) s += " -c " + c.cores;
    if (r.gpus > 0) s += " -g " + c.gpus;
    if (r.walltime_seconds > 0) s += fmt::format(" -t {}s", r.walltime_seconds);
    return s;
  }
  std::string script_extension() const override { return ".flux"; }
  Result<std::vector<std::string>> job_directives(const WorkerJob& job, std::optional<long> wall,
                                                  const std::string& log) const override {
    const auto& b = job.batch;
    if (job.array > 1)
      return Error::bad_input("worker '" + job.worker + "': job arrays are Slurm's, LSF's and PBS's");
    std::vector<std::string> head;
    head.push_back("#flux: --job-name=" + job.job_name);
    head.push_back(fmt::format("#flux: -N {}", job.nodes));
    if (wall) head.push_back(fmt::format("#flux: -t {}s", *wall));
    if (!b.queue.empty()) head.push_back("#flux: -q " + b.queue);
    if (!b.bank.empty()) head.push_back("#flux: --bank=" + b.bank);
    head.push_back("#flux: --output=" + log + job.worker + "-{{id}}.out");
    return head;
  }
  std::string node_launcher(const WorkerJob& job) const override {
    return fmt::format("flux run -N {} -n {}", job.nodes, job.nodes);
  }
  std::vector<std::string> submit_command() const override { return {"flux", "batch"}; }
  std::optional<std::string> job_id(std::string_view out) const override {
    return flux_job_id(out);
  }
  const char* allocation_variable() const override { return "FLUX_URI"; }
  const char* job_id_variable() const override { return "FLUX_JOB_ID"; }
};

}  // namespace

const Scheduler& flux_scheduler() {
  static const Flux s;
  return s;
}

}  // namespace merlin::batch
