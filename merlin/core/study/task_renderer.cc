#include "merlin/core/study/task_renderer.h"
#include "merlin/core/batch/scheduler.h"
#include "merlin/core/batch/walltime.h"

#include <algorithm>
#include <cstdlib>

#include "merlin/core/spec/env_names.h"
#include "merlin/core/spec/field_checks.h"
#include "merlin/core/spec/token.h"
#include "merlin/core/study/launcher.h"
#include "merlin/core/study/substitute.h"
#include "merlin/core/tune/trial_config.h"
#include "merlin/core/tune/tune_report.h"

namespace merlin {
namespace {

// A resource field as a count: `procs: $(RANKS)` takes the study's variables first (Maestro
// substitutes them everywhere in the spec); not a number = not set.
int to_int(const StudyTokens& tokens, const std::string& s) {
  if (s.empty()) return 0;
  return std::atoi(tokens.substitute(s).c_str());
}

LaunchResources resources_of(const StepNode& node, const StudyTokens& tokens) {
  const auto& run = node.spec->run;
  LaunchResources r;
  r.batch_type = node.batch_type;
  r.nodes = to_int(tokens, run.nodes);
  r.procs = to_int(tokens, run.procs);
  r.cores_per_task = to_int(tokens, run.cores_per_task);
  r.gpus = to_int(tokens, run.gpus);
  r.gpus_per_task = to_int(tokens, run.gpus_per_task);
  if (!run.walltime.empty())
    r.walltime_seconds = batch::walltime_seconds(tokens.substitute(run.walltime)).value_or(0);
  const auto* sched = batch::find_scheduler(node.batch_type);
  auto it = run.launcher_flags.find(sched ? std::string(sched->flags_key()) : node.batch_type);
  if (it != run.launcher_flags.end()) r.extra_flags = tokens.substitute(it->second);
  return r;
}

/// Whether the step's command or restart starts ranks: `$(VLAUNCHER)`, or a `$(LAUNCHER)` that
/// renders to a launcher (not to nothing, as one process under `local` does).
bool starts_ranks(const StepNode& node, const StudyTokens& tokens) {
  for (const std::string* text : {&node.cmd, &node.restart})
    for (const auto& t : spec::find_tokens(*text)) {
      if (t.name == "VLAUNCHER") return true;
      if (t.name != "LAUNCHER") continue;
      auto r = resources_of(node, tokens);
      std::string_view whole(text->data() + t.offset, t.length);
      if (auto bracket = whole.find('['); bracket != std::string_view::npos)
        r = with_override(r, whole.substr(bracket));
      if (!render_launcher(r).empty()) return true;
    }
  return false;
}

}  // namespace

bool exported_as_env(const std::string& label) { return spec::is_exported_label(label); }

TaskRenderer::TaskRenderer(const StudyGraph& graph, const samples::SampleTable* table,
                           const ScratchSettings& scratch, std::string rank_env)
    : graph_(graph), table_(table), rank_env_(std::move(rank_env)) {
  const auto& spec = graph.spec();
  for (const auto& node : graph.steps()) {
    const auto& run = node.spec->run;
    std::string dir, home;
    std::vector<std::string> in;
    if (run.scratch) {
      home = user_scratch_dir(scratch_root(graph.tokens().substitute(run.scratch->value), scratch),
                              scratch.uid);
      dir = study_scratch_dir(home, graph.tokens().workspace);
      for (const auto& f : run.stage_in) in.push_back(graph.tokens().substitute(f.value));
    }
    study_scratch_.push_back(std::move(dir));
    scratch_home_.push_back(std::move(home));
    stage_in_.push_back(std::move(in));
    walltime_.push_back(resources_of(node, graph.tokens()).walltime_seconds);
    starts_ranks_.push_back(starts_ranks(node, graph.tokens()));
  }
  if (spec.samples) {
    const auto& labels = spec.samples->column_labels;
    for (std::size_t c = 0; c < labels.size(); ++c) {
      column_of_.emplace(labels[c], c);
      if (exported_as_env(labels[c])) exported_.emplace_back(labels[c], c);
    }
  }
  step_column_of_.resize(graph.steps().size());
  step_exported_.resize(graph.steps().size());
  for (const auto& node : graph.steps()) {
    if (!node.fanout) continue;
    const auto& labels = node.spec->run.samples_from->column_labels;
    for (std::size_t c = 0; c < labels.size(); ++c) {
      step_column_of_[node.id.v].emplace(labels[c], c);
      if (exported_as_env(labels[c])) step_exported_[node.id.v].emplace_back(labels[c], c);
    }
  }
  bool need_all = false;
  for (const auto& node : graph.steps())
    need_all |= node.cmd.find("$(MERLIN_PATHS_ALL)") != std::string::npos ||
                node.restart.find("$(MERLIN_PATHS_ALL)") != std::string::npos;
  if (need_all) paths_all_ = graph.hierarchy().all_paths(' ');
  std::vector<std::string> fanout_files(graph.instances().size());
  for (const auto& inst : graph.instances()) {
    const auto& node = graph.step(inst.step);
    cmd_.push_back(render_instance_text(inst, node.cmd));
    restart_.push_back(node.restart.empty() ? cmd_.back()
                                            : render_instance_text(inst, node.restart));
    if (node.fanout)
      fanout_files[inst.id.v] = render_instance_text(
          inst, graph.tokens().substitute(node.spec->run.samples_from->file.value));
  }
  fanout_ = std::make_unique<FanoutTables>(graph, std::move(fanout_files));
}

Result<void> TaskRenderer::check_samples(InstanceId id) const {
  if (!graph_.step_of(id).fanout) return ok();
  auto t = fanout_->table(id);
  if (!t) return t.error();
  return ok();
}

std::string TaskRenderer::instance_dir(InstanceId id) const {
  return graph_.tokens().workspace + "/" + graph_.instance(id).rel_dir;
}

std::string TaskRenderer::task_dir(InstanceId id, SampleId sample) const {
  const auto& node = graph_.step_of(id);
  if (!node.tune && !node.fanout)
    return graph_.tokens().workspace + "/" + graph_.fixed_task_dir(id, sample);
  std::string dir = instance_dir(id);
  if (node.tune) {
    // One directory per trial, shared by its rungs: a promoted trial finds its checkpoint.
    dir += "/" + tune::trial_dir_name(*node.tune, node.tune->trial_of(sample));
  } else {  // fan-out: its own hierarchy, decided when the instance is released
    SampleHierarchy h = fanout_->hierarchy(id);
    if (h.levels() > 0) {
      dir += '/';
      h.append_path(dir, sample);
    }
  }
  return dir;
}

std::vector<std::string> TaskRenderer::study_scratch_dirs() const {
  std::vector<std::string> out;
  for (const auto& d : study_scratch_)
    if (!d.empty() && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  return out;
}

std::string TaskRenderer::scratch_of(const Instance& inst, const std::string& dir) const {
  const std::string& root = study_scratch_[inst.step.v];
  if (root.empty()) return "";
  return root + dir.substr(graph_.tokens().workspace.size());
}

std::string TaskRenderer::render_instance_text(const Instance& inst,
                                               const std::string& text) const {
  const auto& node = graph_.step(inst.step);
  const auto& spec = graph_.spec();
  return substitute(text, [&](const spec::TokenRef& t) -> std::optional<std::string> {
    for (const auto& p : node.used_params) {
      if (t.name == p) return graph_.param_value(p, inst.combo);
      if (t.name == p + ".label") return graph_.param_label(p, inst.combo);
    }
    if (t.name == "LAUNCHER") {
      std::string_view whole(text.data() + t.offset, t.length);
      auto bracket = whole.find('[');
      auto r = resources_of(node, graph_.tokens());
      r.rank_env = rank_env_;
      if (bracket != std::string_view::npos) r = with_override(r, whole.substr(bracket));
      return render_launcher(r);
    }
    if (t.name == "VLAUNCHER") {
      auto r = resources_of(node, graph_.tokens());
      r.rank_env = rank_env_;
      return render_vlauncher(r);
    }
    if (t.name == "MERLIN_ITERATION") return std::to_string(inst.iteration);
    if (t.name == "MERLIN_GLOB_PATH") return graph_.hierarchy().glob();
    if (t.name == "MERLIN_PATHS_ALL") return paths_all_;
    if (t.name == "MERLIN_SAMPLE_NAMES") {
      std::string names;
      if (node.fanout)
        for (const auto& c : node.spec->run.samples_from->column_labels)
          names += (names.empty() ? "" : " ") + c;
      else if (spec.samples)
        for (const auto& c : spec.samples->column_labels) names += (names.empty() ? "" : " ") + c;
      return names;
    }
    // Merlin's $(WORKSPACE) is the step's (instance's) directory, also in a sampled step: Maestro
    // substitutes it before Merlin lays out the sample directories. A trial's is its own.
    if (t.name == "WORKSPACE" && !node.tune) return instance_dir(inst.id);
    if (t.name == "MERLIN_SCRATCH" && !node.sampled) {
      std::string s = scratch_of(inst, instance_dir(inst.id));
      return s.empty() ? instance_dir(inst.id) : s;
    }
    // $(other.workspace), by Maestro's rules: the other step's top directory when this step
    // depends on it as a funnel (`other_*`, `other*`) or when it has no parameters; else its
    // instance for this step's combination. (An unparameterised step naming a parameterised
    // step it does not funnel over makes Maestro fail; it gets the top directory here.)
    auto dot = t.name.rfind(".workspace");
    if (dot != std::string::npos && dot + 10 == t.name.size()) {
      const std::string other_name = t.name.substr(0, dot);
      const auto* other = spec.find_step(other_name);
      if (!other) return std::nullopt;
      bool funnel = false;
      for (const auto& d : node.spec->run.depends) {
        const auto dep = spec::parse_dependency(d.value);
        funnel |= dep.funnel && dep.step == other_name;
      }
      for (const auto& n : graph_.steps()) {
        if (n.spec != other) continue;
        // Inside a loop body, a step of the same body means the same iteration's.
        const bool same_loop = n.loop >= 0 && n.loop == node.loop;
        const std::uint32_t it = same_loop ? inst.iteration : 1;
        const std::string iter = same_loop ? "/iter." + std::to_string(it) : "";
        if (funnel || n.used_params.empty() || inst.combo < 0)
          return graph_.tokens().workspace + "/" + n.name + iter;
        return instance_dir(graph_.in_iteration(n.id, static_cast<std::uint32_t>(inst.combo), it));
      }
    }
    return std::nullopt;
  });
}

std::string TaskRenderer::render_trial(const StepNode& node, SampleId task,
                                       const std::string& text, RenderedTask& t) const {
  const spec::TuneSpec& tune = *node.spec->run.tune;
  const tune::TuneShape& shape = *node.tune;
  const std::uint32_t trial = shape.trial_of(task), rung = shape.rung_of(task);
  const auto values = tune::trial_values(tune, trial);
  const std::string budget = shape.budget_text(rung);
  t.sample = task;
  auto lookup = [&](const spec::TokenRef& tok) -> std::optional<std::string> {
    if (tok.name == "WORKSPACE" || tok.name == "TRIAL_DIR") return t.dir;
    if (tok.name == "MERLIN_SCRATCH") return t.run_dir();
    if (tok.name == "MERLIN_TRIAL") return std::to_string(trial);
    if (tok.name == "MERLIN_RUNG") return std::to_string(rung);
    if (tune.budget && tok.name == tune.budget->token) return budget;
    for (std::size_t i = 0; i < tune.space.size(); ++i)
      if (tok.name == tune.space[i].name) return values[i];
    return std::nullopt;
  };
  for (std::size_t i = 0; i < tune.space.size(); ++i)
    if (exported_as_env(tune.space[i].name)) t.env.emplace_back(tune.space[i].name, values[i]);
  if (tune.budget && exported_as_env(tune.budget->token))
    t.env.emplace_back(tune.budget->token, budget);
  t.env.emplace_back("MERLIN_TRIAL", std::to_string(trial));
  t.env.emplace_back("MERLIN_RUNG", std::to_string(rung));
  t.env.emplace_back("TRIAL_DIR", t.dir);
  const std::string file = substitute(
      render_instance_text(graph_.instance(t.instance),
                           graph_.tokens().substitute(tune.metric.file.value)),
      lookup);
  t.metric_path = !file.empty() && file.front() == '/' ? file : t.dir + "/" + file;
  t.metric_key = tune.metric.key;
  return substitute(text, lookup);
}

std::string TaskRenderer::script_name(const Instance& inst, TaskKind kind) const {
  const auto& node = graph_.step(inst.step);
  std::string name = inst.base_name;
  // Without a `restart:` command Merlin runs the step's own script again (no restart script).
  if (kind == TaskKind::kRestart && !node.restart.empty()) name += ".restart";
  // Merlin names every script of a scheduler-typed study "<step>.slurm.sh" (observed in 1.13).
  const auto* sched = batch::find_scheduler(node.batch_type);
  if (!sched || sched->has_jobs()) name += ".slurm";
  return name + ".sh";
}

std::string TaskRenderer::instance_script(InstanceId id, TaskKind kind) const {
  const auto& node = graph_.step_of(id);
  return "#!" + node.shell + "\n\n" + (kind == TaskKind::kRestart ? restart_[id.v] : cmd_[id.v]) +
         "\n";
}

std::string TaskRenderer::instance_script_name(InstanceId id, TaskKind kind) const {
  return script_name(graph_.instance(id), kind);
}

RenderedTask TaskRenderer::render(InstanceId id, SampleId sample, TaskKind kind) const {
  const auto& inst = graph_.instance(id);
  const auto& node = graph_.step(inst.step);
  RenderedTask t;
  t.dir = task_dir(id, sample);
  t.shell = node.shell;
  t.pass_broker = node.spec && node.spec->run.pass_broker;
  t.script_path = t.dir + "/" + script_name(inst, kind);
  t.out_path = t.dir + "/" + inst.base_name + ".out";
  t.err_path = t.dir + "/" + inst.base_name + ".err";
  t.step = node.name;
  t.sample = node.sampled ? sample : 0;
  t.instance = id;
  t.kind = kind;
  t.walltime_seconds = walltime_[inst.step.v];
  t.has_restart = !node.restart.empty();
  t.starts_ranks = starts_ranks_[inst.step.v];
  t.scratch_dir = scratch_of(inst, t.dir);
  if (!t.scratch_dir.empty()) {
    const auto& run = node.spec->run;
    t.stage_in_dir = study_scratch_[inst.step.v] + "/stage_in";
    t.scratch_home = scratch_home_[inst.step.v];
    for (const auto& p : run.stage_out) t.stage_out.push_back(p.value);
    t.stage_in = stage_in_[inst.step.v];
    t.step_dir = graph_.tokens().workspace + "/" + node.name;
    t.rel_dir = t.dir.size() > t.step_dir.size() ? t.dir.substr(t.step_dir.size() + 1) : "";
  }
  const std::string& text = kind == TaskKind::kRestart ? restart_[id.v] : cmd_[id.v];
  std::string body;
  if (node.tune) {
    body = render_trial(node, sample, text, t);
  } else if (node.sampled) {
    // A fan-out step's samples are its own table's rows, in its own hierarchy.
    const samples::SampleTable* table = table_;
    const auto* column_of = &column_of_;
    const auto* exported = &exported_;
    std::string path;
    if (node.fanout) {
      auto own = fanout_->table(id);
      table = own ? *own : nullptr;
      column_of = &step_column_of_[node.id.v];
      exported = &step_exported_[node.id.v];
      path = fanout_->hierarchy(id).path(sample);
    } else {
      path = graph_.hierarchy().path(sample);
    }
    // The sample's row, read once: per-cell reads cost a scan of the row each (O(columns^2)).
    std::vector<std::string> row;
    if (table != nullptr && !column_of->empty() && sample < table->rows())
      row = table->row_values(sample);
    body = substitute(text, [&](const spec::TokenRef& tok) -> std::optional<std::string> {
      if (tok.name == "MERLIN_SCRATCH") return t.run_dir();
      if (tok.name == "MERLIN_SAMPLE_ID") return std::to_string(sample);
      if (tok.name == "MERLIN_SAMPLE_PATH") return path;
      if (tok.name == "MERLIN_SAMPLE_VECTOR") {
        std::string v;
        for (const auto& value : row) v += (v.empty() ? "" : " ") + value;
        return v;
      }
      auto col = column_of->find(tok.name);
      if (col != column_of->end() && col->second < row.size()) return row[col->second];
      return std::nullopt;
    });
    for (const auto& [label, col] : *exported)
      if (col < row.size()) t.env.emplace_back(label, row[col]);
    t.env.emplace_back("MERLIN_SAMPLE_ID", std::to_string(sample));
    t.env.emplace_back("MERLIN_SAMPLE_PATH", path);
  } else {
    body = text;
  }
  // $(VLAUNCHER) reads these at run time; a script may override them before it.
  const auto& run = node.spec->run;
  t.env.emplace_back("MERLIN_NODES", run.nodes.empty() ? "1" : run.nodes);
  t.env.emplace_back("MERLIN_PROCS", run.procs.empty() ? "1" : run.procs);
  t.env.emplace_back("MERLIN_CORES", run.cores_per_task.empty() ? "1" : run.cores_per_task);
  t.env.emplace_back("MERLIN_GPUS", run.gpus.empty() ? "0" : run.gpus);
  t.env.emplace_back("MERLIN_WORKSPACE", graph_.tokens().workspace);
  t.env.emplace_back("WORKSPACE", t.dir);
  if (!t.scratch_dir.empty()) t.env.emplace_back("MERLIN_SCRATCH", t.scratch_dir);
  // Maestro's script writer: the `#!` line, a blank line, the command and a newline (so a `|`
  // block, which keeps its own final newline, ends in an empty line), byte for byte.
  t.script_text = "#!" + node.shell + "\n\n" + body + "\n";
  return t;
}

}  // namespace merlin
