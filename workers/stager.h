#pragma once
/// Node-local scratch and staging of a task's outputs (docs/staging.md), behind a small
/// interface: FileStager does the file I/O, tests use a recording fake (tests/fakes/).
/// Every call takes a task rendered with a scratch dir (RenderedTask::scratch_dir not empty).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/study/task_renderer.h"
#include "merlin/core/util/result.h"
#include "workers/staging_rules.h"

namespace merlin {

/// What stage_out copied.
struct StageOutReport {
  std::vector<ManifestEntry> files;  ///< as recorded in the manifest
  std::uint64_t bytes = 0;
};

class Stager {
 public:
  virtual ~Stager() = default;
  /// Before the step runs: makes the task's scratch dir afresh (what a previous attempt left is
  /// removed) and links each `stage_in` file into it under its base name, copying the file
  /// into the node's stage_in dir first when that copy is missing or differs in size or mtime
  /// (once per node: processes and slots of the node take turns by a lock file). Errors
  /// (kRuntime) name the path: scratch not writable or full, a stage_in file missing.
  /// Thread-safe.
  virtual Result<void> prepare(const RenderedTask& task) = 0;
  /// After the step succeeded: copies each scratch file its `stage_out` patterns select to the
  /// same relative path under the task's workspace dir (each written under a temp_name,
  /// fsynced, renamed, then its directory fsynced: no half-copied output is ever seen under
  /// its name), then appends one manifest line per file to this process's manifest of the
  /// step and fsyncs it. Errors (kRuntime, naming the pattern or path): a pattern that matched
  /// no file, a copy that failed (the workspace then holds no temp file of it). Idempotent: a
  /// second call overwrites by rename and appends lines that supersede the first ones.
  /// Thread-safe.
  virtual Result<StageOutReport> stage_out(const RenderedTask& task) = 0;
  /// Removes the task's scratch dir. Thread-safe.
  virtual Result<void> clean(const RenderedTask& task) = 0;

  /// Re-staging (docs/staging.md): after the step succeeded and before its outputs are
  /// staged, records that in the task's scratch dir (kSuccessRecordName, with this node's
  /// boot). Thread-safe.
  virtual Result<void> record_success(const RenderedTask& task, double seconds,
                                      bool write_finished) = 0;
  /// The record a previous run of this task left in its scratch dir on this boot of this node
  /// (its worker died before the staging ended), or nullopt: then the step runs. A link or
  /// anything but a small regular file is not read. Thread-safe.
  virtual std::optional<SuccessRecord> success_record(const RenderedTask& task) = 0;
  /// Removes the record (a staging that failed: the next attempt runs the step). Thread-safe.
  virtual void drop_success_record(const RenderedTask& task) = 0;
};

}  // namespace merlin
