#pragma once
/// `$(LAUNCHER)` rendering: the parallel-launch prefix for a step, from its resources and the
/// batch type. A pure function of its inputs.
#include <string>
#include <string_view>

#include "merlin/core/batch/launch_resources.h"

namespace merlin {

/// The launcher text of the step's scheduler (batch::Scheduler::step_launcher), e.g.
/// "srun -n 4 -N 2" (slurm), "flux run -n 4 -N 1 -c 1" (flux), "jsrun --np 4 --nrs 2 -b rs
/// -d plane:2 -X 1" (lsf), "mpiexec -n 4 -ppn 2" (pbs), "mpirun -np 4" (local, procs > 1).
/// Set cores per task, gpus per task and walltime add the scheduler's flags for them: slurm
/// "-c C -t HH:MM:SS", flux "-g G -t Ss", lsf "-c C -g G"; then the step's extra flags, then
/// the rank shim (r.rank_env) when there is one, which the step's command follows.
/// Empty when the step sets neither nodes nor procs, or under `local` with procs <= 1.
std::string render_launcher(const LaunchResources& r);

/// Applies the "[2n, 4p]" override of `$(LAUNCHER)[2n, 4p]` to `r` (unknown parts ignored).
LaunchResources with_override(LaunchResources r, std::string_view bracket);

/// `$(VLAUNCHER)`: like render_launcher, with counts read from ${MERLIN_NODES}, ${MERLIN_PROCS},
/// ${MERLIN_CORES}, ${MERLIN_GPUS} at run time.
std::string render_vlauncher(const LaunchResources& r);

}  // namespace merlin
