#pragma once
/// Workers inside batch allocations: the job script `merlin run-workers` submits for a worker
/// (`#SBATCH`, `#flux:` or `#BSUB` headers, then one worker process per node started by the
/// scheduler's launcher), and the launch line used when it already runs inside an allocation.
/// Pure functions of their inputs: golden-tested, printed by `run-workers --echo`.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "merlin/core/batch/batch_spec.h"
#include "merlin/core/util/result.h"

namespace merlin::batch {

/// One worker of `merlin.resources.workers` as a batch job.
struct WorkerJob {
  std::string worker;    ///< the worker's name
  std::string job_name;  ///< e.g. "merlin_<study name>_<worker>"
  BatchSpec batch;       ///< the worker's own `batch:` or else the study's
  int nodes = 1;         ///< worker `nodes:`, else batch `nodes:`, else 1
  std::string command;   ///< what each node runs: a `merlin run-workers ... --here` line
  std::string log_dir;   ///< where the job's output file goes
  int array = 0;         ///< > 1: a job array of that many copies (a fleet of allocations)
};

/// The line that starts one `command` per node inside an allocation, Merlin's way: the
/// scheduler's node launcher (slurm `srun --mpi=none --overlap -N n -n n [-p queue]`, flux
/// `flux run -N n -n n`, lsf `jsrun -a 1 -c ALL_CPUS -g ALL_GPUS --bind=none -n n`, pbs
/// `mpiexec -n n -ppn 1`), then `launch_args` and the command; `worker_launch` replaces the
/// launcher and `launch_pre` goes first. `local` runs `command` as it is.
std::string node_launch(const WorkerJob& job);

/// The whole job script of a scheduler with jobs (see scheduler.h): `#!shell`, its directives,
/// its preamble, the node launch line. Errors (kBadInput): a type that has no batch jobs
/// (local), a walltime that is not a duration, what the scheduler refuses.
Result<std::string> render_job_script(const WorkerJob& job);

/// The submit command's program and arguments before the script path: "sbatch --parsable",
/// "flux batch", "bsub" (the script on stdin for bsub: see submit_reads_stdin), "qsub".
std::string submit_program(const std::string& batch_type);
bool submit_reads_stdin(const std::string& batch_type);

}  // namespace merlin::batch
