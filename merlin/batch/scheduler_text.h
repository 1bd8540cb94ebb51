#pragma once
/// What the schedulers print, read: job ids from submit commands and Slurm's time left.
/// Pure functions, unit-tested on the schedulers' own formats.
#include <optional>
#include <string>
#include <string_view>

namespace merlin::batch {

/// The job id in a submit command's stdout: `sbatch --parsable` "123" or "123;cluster",
/// `flux batch` "ƒ2xpKx4sq" (the line as it is), `bsub` "Job <123> is submitted to queue
/// <pbatch>." → "123". nullopt if there is none.
std::optional<std::string> submitted_job_id(const std::string& batch_type, std::string_view out);

/// Slurm's `%L` (time left) as seconds: "days-hours:minutes:seconds", "hours:minutes:seconds",
/// "minutes:seconds"; nullopt for "UNLIMITED", "NOT_SET", "INVALID" or anything else.
std::optional<long> slurm_time_left(std::string_view text);

}  // namespace merlin::batch
