#include "merlin/core/spec/loop_body.h"

#include <map>
#include <string>

namespace merlin::spec {

std::optional<std::vector<std::size_t>> loop_body(const StudySpec& spec, std::size_t decider) {
  if (decider >= spec.steps.size() || !spec.steps[decider].run.loop) return std::nullopt;
  const std::size_t n = spec.steps.size();
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < n; ++i) index.emplace(spec.steps[i].name, i);
  auto head = index.find(spec.steps[decider].run.loop->back_to.value);
  if (head == index.end()) return std::nullopt;
  std::vector<std::vector<std::size_t>> parents(n), children(n);
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& d : spec.steps[i].run.depends) {
      auto it = index.find(parse_dependency(d.value).step);
      if (it == index.end()) continue;
      parents[i].push_back(it->second);
      children[it->second].push_back(i);
    }
  // Marks everything reachable from `start` along `next` (no recursion: long chains).
  auto reach = [n](std::size_t start, const std::vector<std::vector<std::size_t>>& next) {
    std::vector<bool> seen(n, false);
    std::vector<std::size_t> todo{start};
    seen[start] = true;
    while (!todo.empty()) {
      std::size_t u = todo.back();
      todo.pop_back();
      for (std::size_t v : next[u])
        if (!seen[v]) {
          seen[v] = true;
          todo.push_back(v);
        }
    }
    return seen;
  };
  auto ancestors = reach(decider, parents);
  if (!ancestors[head->second]) return std::nullopt;
  auto descendants = reach(head->second, children);
  std::vector<std::size_t> body;
  for (std::size_t i = 0; i < n; ++i)
    if (ancestors[i] && descendants[i]) body.push_back(i);
  return body;
}

}  // namespace merlin::spec
