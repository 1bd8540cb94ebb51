#include "merlin/run/step_executors.h"

#include "workers/process_executor.h"

namespace merlin::run {

std::unique_ptr<StepExecutor> process_executor(std::chrono::milliseconds kill_wait) {
  ProcessExecutorOptions options;
  options.kill_wait = kill_wait;
  return std::make_unique<ProcessExecutor>(options);
}

}  // namespace merlin::run
