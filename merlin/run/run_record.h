#pragma once
/// `merlin_info/run.env`, the workspace's record of its run: which spec (by its copy), when,
/// which samples and `--vars`, and, for a study queued in a broker, which broker and whether it
/// was found complete there. `key=value` lines; the only file that reads or writes it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::run {

struct RunRecord {
  std::string spec_path, timestamp, samples_file;
  std::vector<std::pair<std::string, std::string>> vars;
  std::uint64_t samples = 0;
  std::string broker;     ///< the kind of broker it was queued on ("redis"); "" for a local run
  std::string broker_at;  ///< that broker (masked URL)
  bool finished = false;  ///< a broker study found complete (finished=1)
  /// The workspace is lean (`layout=lean`: `merlin.layout: lean` or `run --lean`); every
  /// command reopening it (restart, run-workers) follows this, not the flag of the moment.
  bool lean = false;
};

/// The study key of a workspace: its directory name, "<name>_<timestamp>".
std::string study_key_of(const std::string& workspace);

/// `<workspace>/merlin_info/run.env`.
std::string run_record_path(const std::string& workspace);

/// Writes a new workspace's record (spec, timestamp, samples, vars) into `info_dir`.
Result<void> write_run_record(const std::string& info_dir, const RunRecord& r);

/// kBadInput "... is not a merlin workspace" when there is none; a malformed count too.
Result<RunRecord> read_run_record(const std::string& workspace);

/// Records that the workspace is queued on a broker of kind `broker` at `broker_at` (replacing
/// an earlier such record, and dropping `finished=1`: a study queued again is not finished),
/// atomically.
Result<void> record_broker(const std::string& workspace, const std::string& broker,
                           const std::string& broker_at);

/// True when the record says the workspace was queued in a broker.
bool is_broker_workspace(const std::string& workspace);

/// Adds `finished=1` (idempotent; concurrent callers write the same text).
Result<void> mark_study_finished(const std::string& workspace);

}  // namespace merlin::run
