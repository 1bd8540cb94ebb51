#pragma once
/// Where the run layer gets the executor that runs steps: the one place that builds the real
/// one (a shell per task, workers/process_executor.h). The local run and the fleet take a
/// factory in their options, so tests run them on a fake (tests/fakes/fake_executor.h).
#include <chrono>
#include <functional>
#include <memory>

#include "workers/step_executor.h"

namespace merlin::run {

/// Makes an executor; `kill_wait`: after SIGTERM to running steps, SIGKILL this much later.
using ExecutorFactory = std::function<std::unique_ptr<StepExecutor>(std::chrono::milliseconds kill_wait)>;

/// The real executor: posix_spawn of the task's shell.
std::unique_ptr<StepExecutor> process_executor(std::chrono::milliseconds kill_wait);

}  // namespace merlin::run
