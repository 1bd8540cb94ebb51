#pragma once
/// The real StepExecutor: posix_spawn of `<shell> <script>` in the task directory.
#include <sys/types.h>

#include <mutex>
#include <set>

#include "workers/step_executor.h"

namespace merlin {

class ProcessExecutor : public StepExecutor {
 public:
  Result<void> prepare(const RenderedTask& task) override;
  Result<ExecResult> run(const RenderedTask& task) override;
  Result<void> mark_finished(const RenderedTask& task) override;
  void terminate_running() override;

 private:
  std::mutex mu_;
  std::set<pid_t> running_;  ///< process groups of running steps
};

}  // namespace merlin
