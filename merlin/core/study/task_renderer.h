#pragma once
/// Turns (instance, sample, kind) into what a worker needs to run it: the directory, the script
/// text as Merlin writes it, the output paths and the environment. Sample values are read from
/// the sample table at render time; nothing per sample is precomputed.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <memory>

#include "merlin/core/samples/sample_table.h"
#include "merlin/core/study/fanout_tables.h"
#include "merlin/core/study/ids.h"
#include "merlin/core/study/scratch_paths.h"
#include "merlin/core/study/study_graph.h"
#include "merlin/core/study/task_kind.h"

namespace merlin {

struct RenderedTask {
  std::string dir;          ///< absolute task directory (instance dir, or its sample dir)
  std::string script_path;  ///< dir/<base>.sh (or .restart.sh, .slurm.sh ...)
  std::string out_path;     ///< dir/<base>.out
  std::string err_path;     ///< dir/<base>.err
  std::string script_text;  ///< "#!<shell>\n\n<command>"
  std::string shell;
  /// Exported to the step: every column label for which exported_as_env() holds, plus
  /// MERLIN_SAMPLE_ID, MERLIN_SAMPLE_PATH, MERLIN_WORKSPACE, WORKSPACE, and the step's
  /// resources for $(VLAUNCHER): MERLIN_NODES, MERLIN_PROCS, MERLIN_CORES, MERLIN_GPUS.
  std::vector<std::pair<std::string, std::string>> env;
  /// The step's `pass_broker`: its environment keeps the worker's credential variables
  /// (workers/step_environment.h); false: they are dropped.
  bool pass_broker = false;

  /// Node-local scratch (docs/staging.md); scratch_dir is empty when the step has none.
  std::string scratch_dir;  ///< the task's scratch dir: the step's cwd while it runs
  /// `<root>/merlin-<uid>`: the user's private dir holding scratch_dir and stage_in_dir, the
  /// one the stager checks before it makes anything below it (workers/scratch_dir.h).
  std::string scratch_home;
  std::string stage_in_dir;            ///< `<home>/merlin-<ws>/stage_in`: the node's shared copies
  std::vector<std::string> stage_out;  ///< glob patterns relative to scratch_dir
  std::vector<std::string> stage_in;   ///< source files, tokens substituted
  std::string step_dir;                ///< `<ws>/<step>`: manifests go to its .merlin_staged/
  std::string rel_dir;  ///< `dir` relative to step_dir ("" for an unparameterised, unsampled step)
  std::string step;     ///< the step's name (logs)
  std::uint64_t sample = 0;  ///< the sample id (0 for an unsampled step)
  InstanceId instance;       ///< the instance rendered
  TaskKind kind = TaskKind::kCmd;
  /// Set by the worker, not the renderer: TaskMessage::attempt (0 = the first run) and why
  /// the task runs again ("retry", "restart", "redelivered"; empty otherwise). A run that
  /// finds .out/.err there appends to them after a marker naming both (workers/step_output.h);
  /// a lean workspace's log index counts attempts from 1 (attempt + 1).
  std::uint32_t attempt = 0;
  std::string again;
  /// The step's `walltime` in seconds, its tokens resolved; 0 = no limit. The executor ends
  /// the task once it has run this long (workers/guarded_spawn.h), in every mode.
  long walltime_seconds = 0;
  /// The step has a `restart:` command (a timed-out task runs again with it).
  bool has_restart = false;
  /// The step starts ranks through `$(LAUNCHER)` (more than one process) or `$(VLAUNCHER)`:
  /// the worker gives the task a MASTER_PORT of its own (docs/training.md).
  bool starts_ranks = false;
  /// A tuned step's task (docs/tuning.md): the file its result is read from when it ends
  /// (absolute; empty for every other step) and the key read from its last line.
  std::string metric_path;
  std::string metric_key;

  /// The directory the step runs in: its scratch dir, or its workspace dir without scratch.
  const std::string& run_dir() const { return scratch_dir.empty() ? dir : scratch_dir; }
};

/// True when a column label is exported to steps as an environment variable: a shell
/// identifier ([A-Za-z_][A-Za-z0-9_]*) that no shell, loader, launcher or merlin reserves
/// (spec::is_exported_label; validation refuses the reserved ones, this is the second guard).
bool exported_as_env(const std::string& label);

class TaskRenderer {
 public:
  /// `table` may be null when the study has no samples. Both must outlive the renderer.
  /// `scratch`: how steps with `scratch:` find their root on this node (read once here).
  /// `rank_env`: the rank shim `$(LAUNCHER)` ends with (LaunchResources::rank_env), "" = none.
  TaskRenderer(const StudyGraph& graph, const samples::SampleTable* table,
               const ScratchSettings& scratch = {}, std::string rank_env = {});

  /// Thread-safe (read-only).
  RenderedTask render(InstanceId instance, SampleId sample, TaskKind kind) const;

  /// The study's scratch dirs on this node (`<root>/merlin-<ws>`, one per distinct root of the
  /// steps with `scratch`), for tidying up after a local run.
  std::vector<std::string> study_scratch_dirs() const;

  /// The sample tables of fan-out steps (docs/fanout.md): the Plan's FanoutSource. The
  /// renderer reads a fan-out instance's values and directories from its copied table.
  const FanoutTables& fanout() const { return *fanout_; }
  /// Whether a task of `instance` can be rendered: always for a study-sampled or unsampled
  /// step; for a fan-out step, the reason its samples could not be read (naming the file).
  Result<void> check_samples(InstanceId instance) const;

  /// The script of `instance` before sample tokens are substituted ("#!<shell>\n\n<command>\n"
  /// with the instance's tokens only): what a lean workspace writes once per instance for
  /// people to read (docs/lean-workspace.md).
  std::string instance_script(InstanceId instance, TaskKind kind) const;
  /// The file name of that script (`<step>.sh`, `<step>.restart.sh`, ...).
  std::string instance_script_name(InstanceId instance, TaskKind kind) const;

  /// The absolute directory of an instance (`<ws>/<step>/<labels>`).
  std::string instance_dir(InstanceId instance) const;
  /// The absolute directory of a task (instance dir + sample path for sampled steps).
  std::string task_dir(InstanceId instance, SampleId sample) const;

 private:
  std::string render_instance_text(const Instance& inst, const std::string& text) const;
  std::string script_name(const Instance& inst, TaskKind kind) const;

  const StudyGraph& graph_;
  const samples::SampleTable* table_;
  std::vector<std::string> cmd_;      ///< per instance, instance-level tokens substituted
  std::vector<std::string> restart_;  ///< idem
  std::vector<long> walltime_;        ///< per step: its walltime in seconds, 0 = none
  std::vector<char> starts_ranks_;    ///< per step: RenderedTask::starts_ranks
  std::string rank_env_;              ///< the rank shim, "" = none
  std::unordered_map<std::string, std::size_t> column_of_;  ///< label → column
  /// Per step: a fan-out step's own label → column and exported columns (else empty).
  std::vector<std::unordered_map<std::string, std::size_t>> step_column_of_;
  std::vector<std::vector<std::pair<std::string, std::size_t>>> step_exported_;
  std::unique_ptr<FanoutTables> fanout_;
  /// Label and column of each column exported as env (exported_as_env).
  std::vector<std::pair<std::string, std::size_t>> exported_;
  std::string paths_all_;  ///< $(MERLIN_PATHS_ALL), built only when a step uses it
  /// Per step: `<root>/merlin-<ws>` for steps with scratch, else "".
  std::vector<std::string> study_scratch_;
  std::vector<std::string> scratch_home_;           ///< per step: `<root>/merlin-<uid>`, or ""
  std::vector<std::vector<std::string>> stage_in_;  ///< per step, tokens substituted
  /// The task's scratch dir (task_dir moved under the step's study scratch dir).
  std::string scratch_of(const Instance& inst, const std::string& dir) const;
  /// The body and environment of a tuned step's task: the trial's values, its budget, its
  /// directory (`$(TRIAL_DIR)`, shared by its rungs), `$(MERLIN_TRIAL)`, `$(MERLIN_RUNG)`.
  std::string render_trial(const StepNode& node, SampleId task, const std::string& text,
                           RenderedTask& t) const;
};

}  // namespace merlin
