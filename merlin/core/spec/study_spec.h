#pragma once
/// The in-memory form of a Merlin/Maestro study spec, after parsing and defaults, before any
/// `$(TOKEN)` is substituted (the template text is kept verbatim; see study/ for expansion).
/// Plain structs with member defaults; filled by `load_spec` (spec_loader.h).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "merlin/core/batch/batch_spec.h"
#include "merlin/core/spec/source_location.h"

namespace merlin::spec {

/// A string with where it came from.
struct Text {
  std::string value;
  SourceLocation where;
};

/// `env.variables` / `env.labels`: ordered, each may use earlier ones.
struct Variable {
  std::string name;
  std::string value;  ///< scalar as written; a list is joined with spaces
  SourceLocation where;
};

/// `batch:` block (study level) or a worker's / step's `batch:`: the schedulers' own type.
using BatchSpec = batch::BatchSpec;

/// One `depends:` entry read: the step it names and whether it is a funnel (Maestro's `name_*`
/// or `name*`: after every parameter combination of `name`).
struct Dependency {
  std::string step;
  bool funnel = false;
};
inline Dependency parse_dependency(std::string_view dep) {
  if (dep.size() < 2 || dep.back() != '*') return {std::string(dep), false};
  dep.remove_suffix(1);
  if (dep.size() > 1 && dep.back() == '_') dep.remove_suffix(1);
  return {std::string(dep), true};
}

/// `samples_from` of a step (an extension, docs/fanout.md): the step's samples are the rows of
/// a file an upstream step writes, read when the step is released.
struct SamplesFrom {
  Text file;                               ///< template text, rendered per instance
  std::vector<std::string> column_labels;  ///< the step's own sample tokens
  std::uint64_t max_rows = 1'000'000;      ///< more rows fail the step
  SourceLocation where;                    ///< of the `samples_from:` key
};

/// `loop` of a step (an extension, docs/fanout.md): the step decides, each time it finishes,
/// whether the steps from `back_to` to it run again, at most `max_iterations` times in all.
struct LoopSpec {
  Text back_to;            ///< an ancestor of the step (or the step itself)
  int max_iterations = 0;  ///< the bound, >= 1; required
  SourceLocation where;    ///< of the `loop:` key
};

/// `tune:` of a step (an extension, docs/tuning.md): the step is a search over `space`; each
/// trial is a task, its configuration the tokens of `space`, its budget the token of
/// `budget`, its result read from `metric`'s file when it ends. With a budget, asynchronous
/// successive halving (ASHA) or hyperband promotes the best trials to larger budgets.
enum class TuneMethod { kRandom, kSobol, kAsha, kHyperband };

/// One dimension of a search space: `NAME: {uniform: [lo, hi]}`, `{log_uniform: [lo, hi]}`,
/// `{integer: [lo, hi]}` (both ends included) or `{choice: [a, b, ...]}`.
struct TuneDimension {
  enum class Kind { kUniform, kLogUniform, kInteger, kChoice };
  std::string name;  ///< the token it sets, `$(NAME)`
  Kind kind = Kind::kUniform;
  double low = 0, high = 0;          ///< not for kChoice
  std::vector<std::string> choices;  ///< kChoice only: scalars as written
  SourceLocation where;
};

/// `budget: {token: EPOCHS, min: 1, max: 27, eta: 3}`: the rungs' budgets are min, min*eta,
/// min*eta^2, ... up to max (the last rung is max itself).
struct TuneBudget {
  std::string token;  ///< the token that carries a task's budget, `$(EPOCHS)`
  double min = 1, max = 1, eta = 3;
  SourceLocation where;
};

/// `metric: {file: metrics.jsonl, key: value, mode: min}`: the trial appends one JSON object
/// per line (`{"budget": b, "value": v}`); the last line's `key` is its result.
struct TuneMetric {
  Text file;                  ///< template text, relative to the trial's directory
  std::string key = "value";
  bool maximize = false;      ///< `mode: max`
  SourceLocation where;
};

struct TuneSpec {
  TuneMethod method = TuneMethod::kAsha;
  std::uint32_t trials = 0;  ///< required, >= 1
  std::uint64_t seed = 0;
  std::vector<TuneDimension> space;  ///< in file order; required, not empty
  std::optional<TuneBudget> budget;  ///< required for asha and hyperband
  TuneMetric metric;                 ///< required
  std::uint32_t brackets = 0;        ///< hyperband: how many (0: as many as rungs)
  /// asha/hyperband: how often, in seconds, a running trial's newest intermediate value is
  /// compared with its rung's (`prune: true` = 1, a number = that, `false` = 0: never).
  double prune_every = 1.0;
  SourceLocation where;              ///< of the `tune:` key
};

/// A step's `run:` block.
struct StepRun {
  Text cmd;                   ///< required
  Text restart;               ///< optional restart command
  std::vector<Text> depends;  ///< step names; `name_*`/`name*`: funnel (parse_dependency)
  std::string task_queue = "merlin";
  std::string shell;  ///< empty = the batch shell
  int max_retries = 30;
  double retry_delay = 1.0;  ///< seconds
  std::string nodes, procs, gpus, cores_per_task, gpus_per_task, walltime;
  std::string reservation, exclusive, priority, qos, bind, launch_distribution;
  bool exit_on_error = false;
  /// `pass_broker: true` (our extension, docs/security.md): the step's environment keeps the
  /// variables that carry the broker's credentials (MERLIN_BROKER_URL, ...), which every other
  /// step is spawned without: a step that runs `merlin run` again asks for them here.
  bool pass_broker = false;
  std::map<std::string, std::string>
      launcher_flags;  ///< extra `$(LAUNCHER)` flags by scheduler flags key (`slurm:`, `pbs:`, ...)
  std::string batch_type;  ///< per-step `batch: {type}`; empty = the study's
  /// Node-local scratch (an extension, docs/staging.md): `auto` or a path whose `$VAR` /
  /// `${VAR}` are expanded on the worker's node at run time. Unset: the step runs in its
  /// workspace directory, as in Merlin.
  std::optional<Text> scratch;
  /// Glob patterns relative to the task's scratch dir, copied to the workspace task dir after
  /// a successful run (only with `scratch`; no absolute path, no `..`).
  std::vector<Text> stage_out;
  /// Files (template text, tokens allowed) copied once per node into scratch and linked into
  /// each task's scratch dir under their base name.
  std::vector<Text> stage_in;
  /// Samples decided at run time (docs/fanout.md); unset: the study's samples, if any.
  std::optional<SamplesFrom> samples_from;
  /// Runs the sub-graph from `back_to` again while the step asks (docs/fanout.md).
  std::optional<LoopSpec> loop;
  /// A search over a space of configurations (docs/tuning.md).
  std::optional<TuneSpec> tune;
  /// Further Merlin/Maestro run keys kept raw (`pre`, `post`, `num resource set`, `tasks per rs`,
  /// `rs per node`, `cpus per rs`, `bind gpus`, `nested`, `use_broker`).
  std::map<std::string, std::string> other;
  SourceLocation where;
};

struct Step {
  std::string name;
  std::string description;
  StepRun run;
  SourceLocation where;  ///< of the step's `name:`
};

/// One `global.parameters` entry. All value lists have the same length and are zipped.
struct Parameter {
  std::string name;
  std::vector<std::string> values;  ///< scalars as written
  std::string label;                ///< e.g. "X2.%%"; default "<name>.%%"
  SourceLocation where;
};

/// `merlin.resources.workers.NAME`.
struct WorkerSpec {
  std::string name;
  std::string args;                ///< Celery-style flags, e.g. "-l INFO --concurrency 4"
  std::vector<std::string> steps;  ///< `[all]` is expanded to every step by the loader
  std::string nodes;
  std::optional<BatchSpec> batch;
  SourceLocation batch_where;  ///< where its `batch:` block is
  std::vector<std::string> machines;
  SourceLocation where;
};

/// `merlin.samples`.
struct SamplesSpec {
  std::string generate_cmd;  ///< `generate.cmd`, template text
  std::string file;          ///< template text, e.g. "$(MERLIN_INFO)/samples.npy"
  std::vector<std::string> column_labels;
  int level_max_dirs = 25;
  SourceLocation where;                ///< of the `samples:` key
  SourceLocation column_labels_where;  ///< of the `column_labels` list
};

/// How `global.parameters` lists combine (`merlin.combine_parameters`): zipped index-wise
/// (Maestro's and Merlin's rule, the default) or every combination (a grid; an extension).
enum class ParameterCombination { kZip, kCartesian };

/// How a study's workspace is laid out (`merlin.layout`, or `merlin run --lean`): Merlin's
/// (the default: per task a directory, `<step>.sh`, `.out`, `.err`, `MERLIN_FINISHED`) or lean
/// (an extension, docs/lean-workspace.md: per task only its directory; the script once per
/// instance, output in per-process logs).
enum class WorkspaceLayout { kMerlin, kLean };

/// The whole spec.
struct StudySpec {
  std::string path;         ///< the spec file as given
  std::string source_text;  ///< the file's bytes, verbatim (for `.orig.yaml`)
  std::string name;         ///< `description.name`, template text
  std::string description;
  SourceLocation name_where;
  std::vector<Variable> variables;  ///< `env.variables`, in file order
  std::vector<Variable> labels;     ///< `env.labels`, in file order
  std::vector<std::string> sources;
  BatchSpec batch;
  SourceLocation batch_where;  ///< where the `batch:` block is
  std::vector<Step> steps;
  std::vector<Parameter> parameters;  ///< after defaults: zipped lists (a grid is expanded)
  ParameterCombination combine_parameters = ParameterCombination::kZip;
  SourceLocation combine_parameters_where;
  bool has_merlin_block = false;
  std::string task_server = "celery";
  bool overlap = false;             ///< `merlin.resources.overlap`: workers may share queues
  std::vector<WorkerSpec> workers;  ///< after defaults (see loader): never empty
  std::optional<SamplesSpec> samples;
  bool allow_shell_metachars = false;  ///< `merlin.samples.allow_shell_metacharacters: true`
  WorkspaceLayout layout = WorkspaceLayout::kMerlin;  ///< `merlin.layout`
  /// `merlin.finished_markers`: a lean workspace writes MERLIN_FINISHED only when true
  /// (Merlin's layout always writes it).
  bool finished_markers = false;

  const Step* find_step(const std::string& step_name) const {
    for (const auto& s : steps)
      if (s.name == step_name) return &s;
    return nullptr;
  }
};

}  // namespace merlin::spec
