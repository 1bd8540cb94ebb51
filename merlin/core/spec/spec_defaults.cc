#include "merlin/core/spec/spec_defaults.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/parameter_grid.h"

namespace merlin::spec {
namespace {

constexpr const char* kDefaultWorker = "default_worker";

bool lists(const WorkerSpec& w, const std::string& step) {
  return std::find(w.steps.begin(), w.steps.end(), step) != w.steps.end();
}

}  // namespace

void apply_overrides(const std::vector<std::pair<std::string, std::string>>& vars, StudySpec& spec,
                     DiagnosticList& diags) {
  for (const auto& [key, value] : vars) {
    Variable* target = nullptr;
    for (auto* list : {&spec.labels, &spec.variables})
      for (auto& v : *list)
        if (v.name == key) target = &v;
    if (target != nullptr) {
      target->value = value;
      continue;
    }
    std::vector<std::string> names;
    for (const auto& v : spec.variables) names.push_back(v.name);
    diags.error({}, "--vars " + key + "=" + value + ": the spec has no variable '" + key +
                        "' in env.variables" + suggestion_suffix(key, names));
  }
}

void apply_defaults(StudySpec& spec, DiagnosticList& diags) {
  // A grid becomes zipped lists here (validation has bounded its size and said so if not).
  if (spec.combine_parameters == ParameterCombination::kCartesian &&
      cartesian_size(spec.parameters) <= kMaxParameterCombinations)
    expand_cartesian(spec.parameters);
  for (auto& s : spec.steps)
    if (s.run.shell.empty()) s.run.shell = spec.batch.shell;

  // Sets, not searches of lists: 10^5 steps must not cost 10^10 comparisons.
  std::vector<std::string> all;
  std::unordered_set<std::string_view> in_all;
  for (const auto& s : spec.steps)
    if (in_all.insert(s.name).second) all.push_back(s.name);

  if (spec.workers.empty()) {
    WorkerSpec w;
    w.name = kDefaultWorker;
    w.steps = all;
    spec.workers.push_back(std::move(w));
    return;
  }
  for (auto& w : spec.workers) {
    if (lists(w, "all")) w.steps = all;
  }
  // Workers consume queues: a step no worker lists still runs when a listed step shares its
  // task_queue (Merlin's slurm_par lists [runs, data]; build and stop_workers share their
  // queue). Only a step whose queue nobody consumes needs a worker of its own.
  std::unordered_set<std::string_view> listed, served;
  for (const auto& w : spec.workers) listed.insert(w.steps.begin(), w.steps.end());
  for (const auto& s : spec.steps)
    if (listed.count(s.name)) served.insert(s.run.task_queue);
  std::vector<std::string> orphans;
  for (const auto& s : spec.steps) {
    if (served.count(s.run.task_queue)) continue;  // its queue's workers run it
    if (!listed.insert(s.name).second) continue;  // listed by a worker, or already an orphan
    orphans.push_back(s.name);
    diags.warning(s.where, "step '" + s.name + "' is not listed by any worker; it is given to '" +
                               kDefaultWorker + "'");
  }
  if (orphans.empty()) return;
  auto it = std::find_if(spec.workers.begin(), spec.workers.end(),
                         [](const WorkerSpec& w) { return w.name == kDefaultWorker; });
  if (it == spec.workers.end()) {
    WorkerSpec w;
    w.name = kDefaultWorker;
    spec.workers.push_back(std::move(w));
    it = spec.workers.end() - 1;
  }
  for (auto& o : orphans) it->steps.push_back(o);
}

}  // namespace merlin::spec
