// `batch: type: local`: no scheduler. Workers run where `run-workers` runs; a parallel step's
// $(LAUNCHER) is mpirun.
#include <fmt/format.h>

#include "merlin/core/batch/scheduler.h"

namespace merlin::batch {
namespace {

class Local : public Scheduler {
 public:
  std::string_view type() const override { return "local"; }
  std::string step_launcher(const LaunchResources&, const LaunchCounts& c) const override {
    return fmt::format("mpirun -np {}", c.procs);
  }
  bool has_jobs() const override { return false; }
  std::string script_extension() const override { return ""; }
  Result<std::vector<std::string>> job_directives(const WorkerJob& job, std::optional<long>,
                                                  const std::string&) const override {
    return Error::bad_input("worker '" + job.worker + "': batch type local has no batch jobs");
  }
  std::string node_launcher(const WorkerJob&) const override { return ""; }
  std::vector<std::string> submit_command() const override { return {}; }
  std::optional<std::string> job_id(std::string_view) const override { return std::nullopt; }
  const char* allocation_variable() const override { return ""; }
};

}  // namespace

const Scheduler& local_scheduler() {
  static const Local s;
  return s;
}

}  // namespace merlin::batch
