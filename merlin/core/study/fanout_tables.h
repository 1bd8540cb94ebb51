#pragma once
/// The sample tables of fan-out instances (docs/fanout.md). Expanding an instance reads the
/// file its `samples_from.file` names (bounded by `max_rows`, columns and values checked as the
/// study's samples are) and copies it to `merlin_info/fanout/<step>[_<labels>].<ext>`: written
/// under a temporary name and link(2)ed into place, so the first copy wins and every worker,
/// restart and status reads the same rows even if the producer rewrites its file. Tables are
/// opened (mmap) once per process and cached. A failed expansion leaves its message in
/// `<copy>.error` for the worker that runs the instance's one failing task.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "merlin/core/samples/sample_table.h"
#include "merlin/core/study/fanout_source.h"
#include "merlin/core/study/study_graph.h"

namespace merlin {

class FanoutTables : public FanoutSource {
 public:
  /// `files[i]` is instance i's rendered `samples_from.file` ("" for other instances); a
  /// relative path is taken relative to the workspace. `graph` must outlive this object.
  FanoutTables(const StudyGraph& graph, std::vector<std::string> files);

  Result<std::uint64_t> expand(InstanceId instance) const override;
  SampleHierarchy hierarchy(InstanceId instance) const override;
  bool loop_again(InstanceId decider) const override;

  /// The expanded instance's table (opened once, then cached; valid as long as this object).
  /// Errors: the reason its expansion failed, or that it was not expanded. Thread-safe.
  Result<const samples::SampleTable*> table(InstanceId instance) const;
  /// True when the instance's copy exists (it was expanded, in this or an earlier process).
  bool expanded(InstanceId instance) const;
  /// `<workspace>/merlin_info/fanout/<base name>.<ext of the source>`.
  std::string copy_path(InstanceId instance) const;
  /// The source file of a fan-out instance, absolute.
  const std::string& source_path(InstanceId instance) const { return files_[instance.v]; }

 private:
  struct Entry {
    std::unique_ptr<samples::SampleTable> table;
    SampleHierarchy hierarchy;
  };
  /// Opens the copy into the cache; caller holds mu_.
  Result<const Entry*> open_copy_locked(InstanceId instance) const;
  /// Checks the source and copies it into place; the error names step and file.
  Result<void> make_copy(InstanceId instance) const;
  std::string what(InstanceId instance) const;

  const StudyGraph& graph_;
  std::vector<std::string> files_;
  int level_max_dirs_ = 25;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::uint32_t, Entry> cache_;
};

}  // namespace merlin
