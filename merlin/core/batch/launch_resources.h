#pragma once
/// What a step asks of the parallel launcher (`$(LAUNCHER)`): counts and its scheduler.
#include <string>

namespace merlin {

struct LaunchResources {
  std::string batch_type = "local";  ///< a type of batch::schedulers()
  int nodes = 0;                     ///< 0 = not set
  int procs = 0;                     ///< 0 = not set
  int cores_per_task = 0;
  int gpus = 0;
  int gpus_per_task = 0;
  long walltime_seconds = 0;  ///< the step's walltime; 0 = not set
  std::string extra_flags;    ///< the step's `slurm:`/`flux:`/`lsf:` flags
  /// The rank shim (`merlin-rank-env`, docs/training.md) that goes after the launcher and its
  /// flags, so that each rank gets RANK, WORLD_SIZE, MASTER_ADDR...; "" = none.
  std::string rank_env;
};

}  // namespace merlin
