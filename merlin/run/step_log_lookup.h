#pragma once
/// What `merlin logs` asks of a lean workspace (docs/lean-workspace.md): which instance a STEP
/// argument names, whether SAMPLE is one of its samples, and the recorded attempts.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/run/prepared_study.h"
#include "merlin/core/workspace/log_index.h"

namespace merlin::run {

/// The attempts of one task, oldest first, and where its logs are.
struct StepLogAttempts {
  std::string instance;  ///< its directory relative to the workspace (`sim` or `sim/X.1`)
  std::string log_dir;
  std::vector<LogAttempt> attempts;
};

/// `step` is a step's name (when it has one instance) or an instance's directory relative to
/// the workspace (`sim/N.10`). kBadInput, naming the choices, for an unknown step, a step with
/// several instances, a sample beyond the step's samples, or a workspace not laid out lean.
/// An empty `attempts` means the task has not run (or its worker died before appending).
Result<StepLogAttempts> find_step_logs(const PreparedStudy& study, const std::string& step,
                                       std::uint64_t sample);

}  // namespace merlin::run
