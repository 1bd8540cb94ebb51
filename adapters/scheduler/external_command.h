#pragma once
/// Runs a scheduler's command-line tool (sbatch, flux, bsub, squeue, scontrol) and captures
/// what it printed: the only place merlin starts such programs, so the rest stays testable.
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/util/process_info.h"
#include "merlin/core/util/result.h"

namespace merlin {

struct CommandOutput {
  int exit_code = 0;
  std::string out, err;  ///< stdout and stderr, whole
};

/// Runs `argv` (argv[0] looked up in PATH, no shell) with stdin from `stdin_path` (or
/// /dev/null) and this process's environment plus `env`, and waits for it. Errors (kRuntime): the
/// program is not in PATH ("sbatch: not found in PATH"), or cannot be started. A non-zero exit is
/// not an error: see exit_code.
Result<CommandOutput> run_external(const std::vector<std::string>& argv,
                                   const std::optional<std::string>& stdin_path = std::nullopt,
                                   const EnvOverrides& env = {});

}  // namespace merlin
