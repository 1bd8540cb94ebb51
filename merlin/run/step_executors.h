#pragma once
/// Where the run layer gets the executor that runs steps: the one place that builds the real
/// one (a shell per task, workers/process_executor.h). The local run and the fleet take a
/// factory in their options, so tests run them on a fake (tests/fakes/fake_executor.h).
#include <chrono>
#include <functional>
#include <memory>

#include "merlin/run/prepared_study.h"
#include "workers/step_executor.h"

namespace merlin::run {

/// Makes an executor; `kill_wait`: after SIGTERM to running steps, SIGKILL this much later.
using ExecutorFactory = std::function<std::unique_ptr<StepExecutor>(std::chrono::milliseconds kill_wait)>;

/// The real executor: posix_spawn of the task's shell.
std::unique_ptr<StepExecutor> process_executor(std::chrono::milliseconds kill_wait);

/// `executor` as the study's layout wants it: unchanged for Merlin's layout; for a lean one
/// (docs/lean-workspace.md) inside a LeanExecutor whose logs are named `<host>.<pid>.<n>`, n
/// counting the lean executors of this process (each appends to files of its own).
std::unique_ptr<StepExecutor> for_layout(std::unique_ptr<StepExecutor> executor,
                                         const PreparedStudy& study);

}  // namespace merlin::run
