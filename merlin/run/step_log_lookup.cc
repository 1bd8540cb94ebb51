#include "merlin/run/step_log_lookup.h"

#include "merlin/core/spec/did_you_mean.h"

namespace merlin::run {

Result<StepLogAttempts> find_step_logs(const PreparedStudy& study, const std::string& step,
                                       std::uint64_t sample) {
  const auto& ws = study.tokens.workspace;
  if (study.spec.layout != spec::WorkspaceLayout::kLean)
    return Error::bad_input(ws +
                            " is not a lean workspace: each task's output is in its "
                            "directory, as <step>.out and <step>.err");
  const StudyGraph& graph = *study.graph;
  std::vector<const Instance*> matches;
  std::vector<std::string> names;  // every step name and instance dir, for the hints
  for (const auto& inst : graph.instances()) {
    const auto& node = graph.step(inst.step);
    if (inst.rel_dir == step || node.name == step) matches.push_back(&inst);
    names.push_back(inst.rel_dir);
  }
  for (const auto& node : graph.steps()) names.push_back(node.name);
  if (matches.empty()) {
    std::string list;
    for (const auto& node : graph.steps()) list += (list.empty() ? "" : ", ") + node.name;
    return Error::bad_input("no step '" + step + "' in " + ws +
                            spec::suggestion_suffix(step, names) + "; its steps: " + list);
  }
  if (matches.size() > 1) {
    std::string list;
    for (const auto* m : matches) list += (list.empty() ? "" : ", ") + m->rel_dir;
    return Error::bad_input("step '" + step + "' has " + std::to_string(matches.size()) +
                            " instances; name one: " + list);
  }
  const Instance& inst = *matches.front();
  const auto& node = graph.step(inst.step);
  // A fan-out step's count is known only once it ran (docs/fanout.md): any sample is asked.
  if (!node.fanout && sample >= inst.count) {
    return Error::bad_input(node.sampled
                                ? "sample " + std::to_string(sample) + " is beyond step '" + step +
                                      "', which has samples 0 to " + std::to_string(inst.count - 1)
                                : "step '" + step + "' is not sampled: its one task is sample 0");
  }
  StepLogAttempts out;
  out.instance = inst.rel_dir;
  out.log_dir = log_dir_of(ws + "/" + inst.rel_dir);
  auto found = find_log_attempts(out.log_dir, sample);
  if (!found) return found.error();
  out.attempts = std::move(*found);
  return out;
}

}  // namespace merlin::run
