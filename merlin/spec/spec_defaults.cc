#include "merlin/spec/spec_defaults.h"

#include <algorithm>

#include "merlin/spec/did_you_mean.h"

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
  for (auto& s : spec.steps)
    if (s.run.shell.empty()) s.run.shell = spec.batch.shell;

  std::vector<std::string> all;
  for (const auto& s : spec.steps)
    if (std::find(all.begin(), all.end(), s.name) == all.end()) all.push_back(s.name);

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
  std::vector<std::string> orphans;
  for (const auto& s : spec.steps) {
    bool listed = std::any_of(spec.workers.begin(), spec.workers.end(),
                              [&](const WorkerSpec& w) { return lists(w, s.name); });
    if (listed || std::find(orphans.begin(), orphans.end(), s.name) != orphans.end()) continue;
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
