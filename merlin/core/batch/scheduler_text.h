#pragma once
/// What the schedulers print, read: job ids from submit commands and Slurm's time left.
/// Pure functions, unit-tested on the schedulers' own formats.
#include <optional>
#include <string>
#include <string_view>

namespace merlin::batch {

/// The job id in a submit command's stdout, by the scheduler of `batch_type`: `sbatch
/// --parsable` "123" or "123;cluster", `flux batch` "ƒ2xpKx4sq" (the line as it is), `bsub`
/// "Job <123> is submitted to queue <pbatch>." → "123", `qsub` "1234.server" (as it is).
/// nullopt if there is none, or for a type that submits no jobs.
std::optional<std::string> submitted_job_id(const std::string& batch_type, std::string_view out);

/// Each scheduler's reading of its submit command's output (see submitted_job_id); the last
/// line counts where warnings may come first.
std::optional<std::string> slurm_job_id(std::string_view out);
std::optional<std::string> flux_job_id(std::string_view out);
std::optional<std::string> lsf_job_id(std::string_view out);
std::optional<std::string> pbs_job_id(std::string_view out);

/// PBS's time left from `qstat -f JOB`: Torque's "Walltime.Remaining = N", else PBS Pro's
/// "Resource_List.walltime" less "resources_used.walltime" (HH:MM:SS); nullopt without a
/// limit.
std::optional<long> pbs_time_left(std::string_view qstat_full);

/// Slurm's `%L` (time left) as seconds: "days-hours:minutes:seconds", "hours:minutes:seconds",
/// "minutes:seconds"; nullopt for "UNLIMITED", "NOT_SET", "INVALID" or anything else.
std::optional<long> slurm_time_left(std::string_view text);

}  // namespace merlin::batch
