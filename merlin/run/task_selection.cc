#include "merlin/run/task_selection.h"

#include <algorithm>
#include <set>

#include "merlin/core/plan/plan.h"
#include "merlin/core/spec/did_you_mean.h"

namespace merlin::run {
namespace {

// Each name must be one of `known`; kBadInput naming the closest.
Result<std::set<std::string>> known_names(const std::vector<std::string>& given,
                                          const std::vector<std::string>& known, const char* flag,
                                          const char* what) {
  std::set<std::string> out;
  for (const auto& g : given) {
    if (std::find(known.begin(), known.end(), g) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return Error::bad_input(std::string(flag) + ": the study has no " + what + " '" + g + "'" +
                              spec::suggestion_suffix(g, known) + " (it has " + list + ")");
    }
    out.insert(g);
  }
  return out;
}

}  // namespace

Result<std::vector<bool>> chosen_instances(const PreparedStudy& study,
                                           const std::vector<std::string>& step_args,
                                           const std::vector<std::string>& queue_args) {
  const StudyGraph& graph = *study.graph;
  Plan plan(graph);
  std::vector<std::string> step_names, queue_names;
  for (const auto& n : graph.steps()) step_names.push_back(n.name);
  for (const auto& i : graph.instances()) {
    const auto& q = plan.queue_of(i.id);
    if (std::find(queue_names.begin(), queue_names.end(), q) == queue_names.end())
      queue_names.push_back(q);
  }
  // Merlin's `--steps all` (its default) is every step.
  const bool all_steps = std::find(step_args.begin(), step_args.end(), "all") != step_args.end();
  auto steps = known_names(all_steps ? std::vector<std::string>{} : step_args, step_names,
                           "--steps", "step");
  if (!steps) return steps.error();
  auto queues = known_names(queue_args, queue_names, "--task-queues", "queue");
  if (!queues) return queues.error();
  std::vector<bool> wanted(graph.instances().size());
  for (const auto& i : graph.instances())
    wanted[i.id.v] = (steps->empty() || steps->count(graph.step(i.step).name)) &&
                     (queues->empty() || queues->count(plan.queue_of(i.id)));
  return wanted;
}

Result<std::vector<TaskRow>> list_tasks(const PreparedStudy& study, const std::vector<bool>& wanted,
                                        const TaskFilter& filter, StateStore* store, bool live) {
  Plan plan(*study.graph);
  return list_tasks(study, plan, wanted, filter, store, live);
}

}  // namespace merlin::run
