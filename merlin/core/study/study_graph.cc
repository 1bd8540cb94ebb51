#include "merlin/core/study/study_graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "merlin/core/spec/token.h"
#include "merlin/core/study/step_text.h"

namespace merlin {
namespace {

// Parameter names a command uses directly: $(P) or $(P.label).
std::set<std::string> params_used_by(const std::string& text, const spec::StudySpec& spec) {
  std::set<std::string> out;
  for (const auto& t : spec::find_tokens(text)) {
    for (const auto& p : spec.parameters) {
      if (t.name == p.name || t.name == p.name + ".label") out.insert(p.name);
    }
  }
  return out;
}

bool uses_sample_token(const std::string& text, const spec::StudySpec& spec,
                       const spec::Step& step) {
  for (const auto& t : spec::find_tokens(text)) {
    if (spec::is_sample_token(t.name)) return true;
    if (step.run.samples_from) continue;  // its own labels: fan-out steps are sampled anyway
    if (spec.samples) {
      for (const auto& c : spec.samples->column_labels)
        if (t.name == c) return true;
    }
  }
  return false;
}

// Two parameter combinations a step uses that print the same labels would share a directory
// (Maestro keeps one of them, silently): refused, naming the values.
Error same_directory_error(const spec::StudySpec& spec, const std::string& step, int first,
                           int second, const std::string& labels) {
  const spec::Parameter& p = spec.parameters.front();
  return Error::bad_input(
      spec.path + ":" + std::to_string(p.where.line) + ":" + std::to_string(p.where.column) +
      ": parameter combinations " + std::to_string(first + 1) + " and " +
      std::to_string(second + 1) + " give step '" + step + "' the same directory '" + step + "/" +
      labels +
      "' (values print as Merlin prints them: 01 is 1, yes is True, 1.50 is 1.5); make "
      "them distinct, or quote a value to keep it as written");
}

}  // namespace

std::vector<StepId> topological_order(const spec::StudySpec& spec) {
  std::map<std::string, std::uint32_t> index;
  for (std::uint32_t i = 0; i < spec.steps.size(); ++i) index[spec.steps[i].name] = i;
  std::vector<int> state(spec.steps.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<StepId> order;
  std::function<void(std::uint32_t)> visit = [&](std::uint32_t i) {
    if (state[i] != 0) return;  // a cycle (state 1) was reported by the validator already
    state[i] = 1;
    for (const auto& d : spec.steps[i].run.depends) {
      auto it = index.find(spec::parse_dependency(d.value).step);
      if (it != index.end()) visit(it->second);
    }
    state[i] = 2;
    order.push_back(StepId{i});
  };
  for (std::uint32_t i = 0; i < spec.steps.size(); ++i) visit(i);
  return order;
}

std::string StudyGraph::param_value(const std::string& name, int combo) const {
  for (const auto& p : spec_->parameters)
    if (p.name == name && combo >= 0 && static_cast<std::size_t>(combo) < p.values.size())
      return p.values[combo];
  return {};
}

std::string StudyGraph::param_label(const std::string& name, int combo) const {
  for (const auto& p : spec_->parameters) {
    if (p.name != name) continue;
    std::string label = p.label.empty() ? p.name + ".%%" : p.label;
    auto at = label.find("%%");
    if (at != std::string::npos) label.replace(at, 2, param_value(name, combo));
    return label;
  }
  return {};
}

std::vector<std::uint64_t> StudyGraph::start_counts() const {
  std::vector<std::uint64_t> out;
  out.reserve(instances_.size());
  for (const auto& i : instances_) out.push_back(unknown_at_start(i.id) ? kCountUnknown : i.count);
  return out;
}

std::string StudyGraph::fixed_task_dir(InstanceId id, std::uint64_t sample) const {
  std::string dir = instance(id).rel_dir;
  if (step_of(id).sampled && hierarchy_.levels() > 0) {
    dir += '/';
    hierarchy_.append_path(dir, sample);
  }
  return dir;
}

std::uint64_t StudyGraph::total_tasks() const {
  std::uint64_t n = 0;
  for (const auto& i : instances_) n += i.count;
  return n;
}

Result<StudyGraph> StudyGraph::build(const spec::StudySpec& spec, const StudyTokens& tokens,
                                     std::uint64_t samples) {
  StudyGraph g;
  g.spec_ = &spec;
  g.tokens_ = &tokens;
  g.samples_ = samples;
  int level_max_dirs = spec.samples ? spec.samples->level_max_dirs : 25;
  g.hierarchy_ = SampleHierarchy(samples, level_max_dirs);

  std::map<std::string, std::uint32_t> index;
  for (std::uint32_t i = 0; i < spec.steps.size(); ++i) index[spec.steps[i].name] = i;
  g.steps_.resize(spec.steps.size());
  for (std::uint32_t i = 0; i < spec.steps.size(); ++i) {
    const auto& s = spec.steps[i];
    auto& node = g.steps_[i];
    node.id = StepId{i};
    node.name = s.name;
    node.spec = &s;
    const VlauncherCounts counts{s.run.nodes, s.run.procs, s.run.cores_per_task, s.run.gpus};
    node.cmd = merlin_step_text(
        tokens.substitute(with_vlauncher_lines(s.run.cmd.value, counts,
                                              !s.run.shell.empty() ? s.run.shell : spec.batch.shell)));
    node.restart = merlin_step_text(tokens.substitute(s.run.restart.value));
    node.fanout = s.run.samples_from.has_value();
    if (s.run.tune) node.tune = tune::shape_of(*s.run.tune);
    node.sampled = node.fanout || uses_sample_token(node.cmd, spec, s) ||
                   uses_sample_token(node.restart, spec, s);
    if (node.sampled && !node.fanout && samples == 0)
      return Error::bad_input(spec.path + ":" + std::to_string(s.where.line) + ":" +
                              std::to_string(s.where.column) + ": step '" + s.name +
                              "' uses sample tokens but the study has no samples");
    if (node.tune && node.sampled)
      return Error::bad_input(spec.path + ":" + std::to_string(s.where.line) + ":" +
                              std::to_string(s.where.column) + ": step '" + s.name +
                              "' is tuned: its tasks are trials, not samples, so it cannot use "
                              "sample tokens");
    if (node.tune && s.run.scratch)
      return Error::bad_input(spec.path + ":" + std::to_string(s.run.scratch->where.line) + ":" +
                              std::to_string(s.run.scratch->where.column) + ": step '" + s.name +
                              "' is tuned: its trials keep their results and checkpoints in "
                              "$(TRIAL_DIR), in the workspace, so it cannot run in scratch");
    node.shell = !s.run.shell.empty() ? s.run.shell : spec.batch.shell;
    node.batch_type = !s.run.batch_type.empty() ? s.run.batch_type : spec.batch.type;
  }

  // Parameters: a step uses the ones its commands name plus those of its non-funnel parents.
  auto order = topological_order(spec);
  std::vector<std::set<std::string>> used(spec.steps.size());
  for (StepId sid : order) {
    auto& u = used[sid.v];
    auto& node = g.steps_[sid.v];
    u = params_used_by(node.cmd, spec);
    for (auto& p : params_used_by(node.restart, spec)) u.insert(p);
    for (const auto& d : node.spec->run.depends) {
      auto dep = spec::parse_dependency(d.value);
      auto it = index.find(dep.step);
      if (it != index.end() && !dep.funnel)
        u.insert(used[it->second].begin(), used[it->second].end());
    }
    node.used_params.assign(u.begin(), u.end());  // std::set: sorted by name, as Merlin does
  }

  // Instances, in topological order of steps so parents precede children.
  std::size_t combos = spec.parameters.empty() ? 0 : spec.parameters.front().values.size();
  for (StepId sid : order) {
    auto& node = g.steps_[sid.v];
    node.first_instance = InstanceId{static_cast<std::uint32_t>(g.instances_.size())};
    int n = node.used_params.empty() ? 1 : static_cast<int>(combos);
    std::unordered_map<std::string, int> first_combo;  // labels -> combination
    for (int c = 0; c < n; ++c) {
      Instance inst;
      inst.id = InstanceId{static_cast<std::uint32_t>(g.instances_.size())};
      inst.step = sid;
      inst.combo = node.used_params.empty() ? -1 : c;
      for (const auto& p : node.used_params) {
        if (!inst.labels.empty()) inst.labels += '.';
        inst.labels += g.param_label(p, c);
      }
      if (!inst.labels.empty()) {
        auto [seen, fresh] = first_combo.emplace(inst.labels, c);
        if (!fresh) return same_directory_error(spec, node.name, seen->second, c, inst.labels);
      }
      inst.rel_dir = inst.labels.empty() ? node.name : node.name + "/" + inst.labels;
      inst.base_name = inst.labels.empty() ? node.name : node.name + "_" + inst.labels;
      inst.count = node.fanout ? 0 : node.tune ? node.tune->tasks() : node.sampled ? samples : 1;
      inst.index = static_cast<std::uint32_t>(c);
      g.instances_.push_back(std::move(inst));
    }
    node.instance_count = static_cast<std::uint32_t>(n);
  }

  // Edges.
  for (auto& node : g.steps_) {
    for (const auto& d : node.spec->run.depends) {
      const auto [target, funnel] = spec::parse_dependency(d.value);
      auto it = index.find(target);
      if (it == index.end()) continue;
      const auto& parent = g.steps_[it->second];
      for (std::uint32_t k = 0; k < node.instance_count; ++k) {
        auto& child = g.instances_[node.first_instance.v + k];
        // Different sample sets (a fan-out step's own rows) never pair sample by sample.
        EdgeKind kind =
            (!funnel && node.sampled && parent.sampled && !node.fanout && !parent.fanout)
                ? EdgeKind::kPerSample
                : EdgeKind::kWhole;
        auto link = [&](std::uint32_t p) {
          InstanceId pid{parent.first_instance.v + p};
          child.parents.push_back({pid, kind});
          g.instances_[pid.v].children.push_back({child.id, kind});
        };
        if (funnel || parent.instance_count == 1) {
          for (std::uint32_t p = 0; p < parent.instance_count; ++p) link(p);
        } else {
          // The child inherited the parent's parameters: same combination index.
          link(static_cast<std::uint32_t>(std::max(child.combo, 0)));
        }
      }
    }
  }
  auto loops = g.expand_loops();
  if (!loops) return loops.error();
  return g;
}

}  // namespace merlin
