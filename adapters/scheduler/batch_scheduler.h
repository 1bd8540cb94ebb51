#pragma once
/// The batch schedulers as merlin uses them: submit a worker job script, tell whether this
/// process already runs inside an allocation, and how long that allocation has left. Side
/// effects (sbatch, flux, bsub, squeue) stay here; what they print is read by
/// merlin/core/batch/scheduler_text.
#include <optional>
#include <string>

#include "merlin/core/util/process_info.h"
#include "merlin/core/util/result.h"

namespace merlin {

/// Submits `script_path` with the scheduler of `batch_type` (its batch::Scheduler's submit
/// command: `sbatch --parsable`, `flux batch`, `bsub < script`, `qsub`), with `env` added to
/// the environment it runs with (which the job inherits); returns the job id. A refusal is an
/// error (kRuntime) carrying the scheduler's own words.
Result<std::string> submit_job_script(const std::string& batch_type, const std::string& script_path,
                                      const EnvOverrides& env = {});

/// True inside an allocation of that scheduler (its allocation variable is set: SLURM_JOB_ID
/// for slurm and lsf-srun, FLUX_URI, LSB_JOBID, PBS_JOBID).
bool inside_allocation(const std::string& batch_type);

/// Seconds left before the time limit of the allocation this process runs in, asked of the
/// first scheduler whose allocation variable is set and that can tell (Slurm: `squeue -h -j
/// JOB -o %L`; PBS: `qstat -f JOB`); nullopt outside one, without a limit, or if it cannot tell.
std::optional<long> allocation_seconds_left();

}  // namespace merlin
