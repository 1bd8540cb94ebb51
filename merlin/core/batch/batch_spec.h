#pragma once
/// A `batch:` block of a spec (the study's, or a worker's own): what a scheduler needs to write
/// and submit a worker job. Read and checked by merlin/core/spec; used by the schedulers here.
#include <map>
#include <string>
#include <vector>

namespace merlin::batch {

struct BatchSpec {
  std::string type = "local";  ///< a type of schedulers() (scheduler.h)
  std::string bank, queue;
  std::string shell = "/bin/bash";
  std::string nodes;     ///< as written; validated as a positive integer when set
  std::string walltime;  ///< HH:MM:SS, MM:SS or seconds
  bool dry_run = false;
  std::string launch_pre, launch_args, worker_launch;
  std::string flux_path, flux_start_opts, flux_exec, flux_exec_workers;
  std::map<std::string, std::string> other;  ///< any further known key, raw
  /// `bb:` (an extension): burst-buffer lines for a Slurm worker job, each emitted verbatim
  /// after the `#SBATCH` lines, prefixed `#BB ` unless it already starts with `#` (`#DW ...`).
  std::vector<std::string> bb;
};

}  // namespace merlin::batch
