#pragma once
/// The other half of `merlin verify` (docs/staging.md, "Checking staged outputs"): what should
/// have been staged. A task of a step with `scratch:` and `stage_out:` is committed as a success
/// only after its outputs were copied and their manifest lines written and synced, and a pattern
/// that matches no file fails the task. So for every task the journals record as a success, the
/// manifests list at least one file per pattern in its directory. A task they do not has lost
/// its manifest lines (a manifest removed, cut short or replaced): its outputs cannot be checked.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "merlin/core/study/study_graph.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// Per step directory, per sample id: the paths its manifests list (relative to the step's
/// directory, as in the manifest).
using ListedPaths = std::map<std::string, std::unordered_map<std::uint64_t, std::vector<std::string>>>;

/// A task that succeeded with no manifest line for one of its step's patterns.
struct UnrecordedTask {
  std::string step;
  std::uint64_t sample = 0;
  std::string dir;      ///< the task's directory, relative to the step's ("" for the step's own)
  std::string pattern;  ///< the first stage_out pattern no listed path of the task matches
};

struct ExpectedReport {
  std::uint64_t tasks = 0;                   ///< succeeded tasks of staged steps, checked
  std::vector<UnrecordedTask> unrecorded;    ///< sorted by step, then sample
  std::vector<std::string> unchecked_steps;  ///< staged steps in a loop or fanning out
};

/// Which of `steps` (empty: every step) with scratch and stage_out succeeded without manifest
/// lines: reads every task journal of `info_dir` once. Steps in a loop or fanning out (their
/// directories are decided at run time) are not checked and are named in `unchecked_steps`.
/// Errors: a journal that cannot be read.
Result<ExpectedReport> find_unrecorded(const StudyGraph& graph, const std::string& info_dir,
                                       const ListedPaths& listed,
                                       const std::vector<std::string>& steps);

/// Whether `path` (relative to the step's directory) is a file of the task directory `dir`
/// matched by the stage_out `pattern` (fnmatch with FNM_PATHNAME | FNM_PERIOD, as staging).
bool listed_under(const std::string& dir, const std::string& path, const std::string& pattern);

/// One unrecorded task as a line for people: `<ws>/<step>/<dir> (sample N): its step succeeded,
/// but no manifest line matches its stage_out pattern 'P' (...)`.
std::string unrecorded_line(const std::string& workspace, const UnrecordedTask& t);

}  // namespace merlin::run
