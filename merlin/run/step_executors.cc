#include "merlin/run/step_executors.h"

#include "workers/process_executor.h"

namespace merlin::run {

std::unique_ptr<StepExecutor> process_executor(std::chrono::milliseconds kill_wait) {
  return std::make_unique<ProcessExecutor>(ProcessExecutorOptions{kill_wait});
}

}  // namespace merlin::run
