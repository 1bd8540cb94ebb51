#pragma once
/// Everything a command needs about one study: the validated spec, its token values, the
/// samples, the task graph and the renderer. Built the same way by run, restart and status.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/samples/sample_table.h"
#include "merlin/core/spec/spec_loader.h"
#include "merlin/core/study/study_graph.h"
#include "merlin/core/study/study_tokens.h"
#include "merlin/core/study/task_renderer.h"
#include "merlin/core/util/result.h"
#include "merlin/run/run_record.h"

namespace merlin::run {

struct PrepareOptions {
  std::string spec_path;
  std::vector<std::pair<std::string, std::string>> vars;  ///< --vars
  std::string samples_file;                               ///< --samplesfile
  std::string timestamp;  ///< of this run (YYYYMMDD-HHMMSS); see `epoch`
  /// When set (a new run), the timestamp is made from it, moved on by a second while a
  /// workspace of that name exists (two runs started in the same second).
  long long epoch = 0;
  std::string cwd;
  std::string workspace;  ///< restart/status: the existing workspace (nothing is created)
  std::string spec_root;  ///< restart/status: $(SPECROOT) of the original spec
  std::string spec_stem;  ///< restart/status: file stem of the original spec
  std::uint64_t expect_samples = 0;  ///< restart/status: the row count recorded at run time
  bool create_workspace = true;      ///< run: lay out merlin_info/ (removed again on failure)
  bool open_samples = true;          ///< status needs only the count, stored in run.env
  ScratchSettings scratch;           ///< how steps with `scratch:` find their root on this node
  /// The rank shim `$(LAUNCHER)` ends with (rank_env_program()); "" = none.
  std::string rank_env;
  /// `run --lean`, or a reopened workspace recorded lean: the spec's layout becomes lean.
  bool lean = false;
};

struct PreparedStudy {
  spec::StudySpec spec;
  std::vector<spec::Diagnostic> warnings;
  StudyTokens tokens;
  std::string samples_path;  ///< absolute, in merlin_info/ once copied ("" without samples)
  std::uint64_t sample_count = 0;
  std::unique_ptr<samples::SampleTable> table;
  std::unique_ptr<StudyGraph> graph;
  std::unique_ptr<TaskRenderer> renderer;  ///< null unless samples were opened
};

/// Loads, validates and expands a study; for a new run also writes merlin_info/ (spec copies,
/// samples, run.env). Errors: kBadInput (exit 2) for spec/sample problems, kRuntime otherwise.
/// On failure a workspace created by this call is removed again.
Result<std::unique_ptr<PreparedStudy>> prepare_study(const PrepareOptions& options);

/// The rank shim for `$(LAUNCHER)` (docs/training.md): $MERLIN_RANK_ENV when it is set (empty:
/// none), else `merlin-rank-env` beside this executable when it is there, else none.
std::string rank_env_program();

/// Options to reopen an existing workspace from its merlin_info/ (restart, status): the spec
/// copy, the recorded --vars, samples copy and timestamp.
Result<PrepareOptions> reopen_options(const std::string& workspace, const std::string& cwd);

/// The newest `<name>_<timestamp>` workspace of `spec_path` under its OUTPUT_PATH (under
/// `output_path` instead when given, relative to `cwd`).
Result<std::string> latest_workspace(const std::string& spec_path, const std::string& cwd,
                                     const std::string& output_path = "");

/// The study a status command looks at: `target` is a workspace, or a spec whose newest
/// workspace is taken (under `output_path` when given). Reopened without reading its samples.
struct StudyAtHand {
  std::string workspace;
  std::unique_ptr<PreparedStudy> study;
};
Result<StudyAtHand> open_for_status(const std::string& target, const std::string& cwd,
                                    const std::string& output_path);

}  // namespace merlin::run
