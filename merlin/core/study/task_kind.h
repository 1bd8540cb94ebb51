#pragma once
#include <cstdint>

namespace merlin {

/// Which command of a step a task runs.
enum class TaskKind : std::uint8_t {
  kCmd = 0,      ///< the step's `cmd`
  kRestart = 1,  ///< its `restart` command (or `cmd` when it has none), after MERLIN_RESTART
};

}  // namespace merlin
