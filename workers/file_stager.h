#pragma once
/// The real Stager: POSIX file I/O on the node's scratch and the shared workspace.
/// Manifests: `<ws>/<step>/.merlin_staged/<host>.<pid>.tsv`, one per worker process per step,
/// so processes on many nodes never append to one shared file; within the process appends take
/// turns on one lock.
#include <functional>
#include <mutex>
#include <set>
#include <string>

#include "workers/scratch_dir.h"
#include "workers/stager.h"

namespace merlin {

struct FileStagerOptions {
  std::string host;  ///< "" = this machine's name
  long pid = 0;      ///< 0 = this process's id
  /// A seam for tests: called with each selected output's scratch path after the listing and
  /// before the file is opened (to swap it for a link or a FIFO in that gap). Null in use.
  std::function<void(const std::string& path)> before_copy;
  std::string boot_id;  ///< "" = this node's (/proc/sys/kernel/random/boot_id)
};

/// At the end of a study on a node (a local run): removes `<study scratch dir>/stage_in` and
/// every directory under `dir` left empty, `dir` too; the scratch dirs of failed tasks (not
/// empty) stay for inspection, and so does the user's private dir above `dir`. No link is
/// followed. Returns whether `dir` is gone. Only for the last process of the study on the
/// node: the stage_in copies are shared.
bool tidy_study_scratch(const std::string& dir);

class FileStager : public Stager {
 public:
  explicit FileStager(FileStagerOptions options = {});
  Result<void> prepare(const RenderedTask& task) override;
  Result<StageOutReport> stage_out(const RenderedTask& task) override;
  Result<void> clean(const RenderedTask& task) override;
  Result<void> record_success(const RenderedTask& task, double seconds,
                              bool write_finished) override;
  std::optional<SuccessRecord> success_record(const RenderedTask& task) override;
  void drop_success_record(const RenderedTask& task) override;

  /// The manifest this process appends to for a step dir.
  std::string manifest_path(const std::string& step_dir) const;

 private:
  /// The task's private scratch home, opened and checked (its root's ancestors once per
  /// process and root: check_scratch_base).
  Result<UniqueFd> open_home(const RenderedTask& task);
  Result<void> stage_in_file(const RenderedTask& task, int home, int scratch,
                             const std::string& source);
  Result<void> append_manifest(const RenderedTask& task, const std::string& lines);
  void remove_stale_temps(const std::string& dir) const;

  std::string host_;
  long pid_;
  std::string boot_id_;  ///< empty when unknown: no task is re-staged
  std::function<void(const std::string&)> before_copy_;
  std::mutex checked_mu_;
  std::set<std::string> checked_roots_;  ///< scratch roots that passed check_scratch_base
};

}  // namespace merlin
