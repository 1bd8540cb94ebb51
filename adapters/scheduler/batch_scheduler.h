#pragma once
/// The batch schedulers as merlin uses them: submit a worker job script, tell whether this
/// process already runs inside an allocation, and how long that allocation has left. Side
/// effects (sbatch, flux, bsub, squeue) stay here; what they print is read by
/// merlin/batch/scheduler_text.
#include <optional>
#include <string>

#include "merlin/util/result.h"

namespace merlin {

/// Submits `script_path` with the scheduler of `batch_type` (slurm: `sbatch --parsable`,
/// flux: `flux batch`, lsf/lsf-srun: `bsub < script`); returns the job id. A refusal is an
/// error (kRuntime) carrying the scheduler's own words.
Result<std::string> submit_job_script(const std::string& batch_type,
                                      const std::string& script_path);

/// True inside an allocation of that scheduler: SLURM_JOB_ID (slurm, lsf-srun), FLUX_URI
/// (flux), LSB_JOBID (lsf).
bool inside_allocation(const std::string& batch_type);

/// Seconds left before this Slurm allocation's time limit (`squeue -h -j $SLURM_JOB_ID -o %L`);
/// nullopt outside Slurm, without a limit, or if squeue cannot tell.
std::optional<long> slurm_allocation_seconds_left();

}  // namespace merlin
