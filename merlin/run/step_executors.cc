#include "merlin/run/step_executors.h"

#include <atomic>

#include "workers/lean_executor.h"
#include "workers/process_executor.h"

namespace merlin::run {

std::unique_ptr<StepExecutor> process_executor(std::chrono::milliseconds kill_wait) {
  ProcessExecutorOptions options;
  options.kill_wait = kill_wait;
  return std::make_unique<ProcessExecutor>(options);
}

std::unique_ptr<StepExecutor> for_layout(std::unique_ptr<StepExecutor> executor,
                                         const PreparedStudy& study) {
  if (study.spec.layout != spec::WorkspaceLayout::kLean) return executor;
  static std::atomic<unsigned> made{0};  // tells apart the log files of this process's workers
  LeanExecutorOptions o;
  o.finished_markers = study.spec.finished_markers;
  o.logs.writer = default_log_writer() + "." + std::to_string(made++);
  return std::make_unique<LeanExecutor>(std::move(executor), *study.renderer, o);
}

}  // namespace merlin::run
