// `depends:` targets and cycles.
#include <map>

#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/spec_validator.h"

namespace merlin::spec {
namespace {

struct Edge {
  std::size_t to;
  SourceLocation where;
};

class CycleFinder {
 public:
  CycleFinder(const StudySpec& spec, const std::vector<std::vector<Edge>>& edges,
              DiagnosticList& diags)
      : spec_(spec), edges_(edges), diags_(diags), color_(edges.size(), 0) {}

  void run() {
    for (std::size_t i = 0; i < edges_.size(); ++i)
      if (color_[i] == 0) visit(i);
  }

 private:
  // Depth-first without recursion (a chain of thousands of steps must not exhaust the stack);
  // a grey target is on the current path, so path[target..] + target is a cycle.
  void visit(std::size_t start) {
    std::vector<std::pair<std::size_t, std::size_t>> stack{{start, 0}};  // (step, next edge)
    color_[start] = 1;
    path_.push_back(start);
    while (!stack.empty()) {
      auto& [u, next] = stack.back();
      if (next == edges_[u].size()) {
        color_[u] = 2;
        path_.pop_back();
        stack.pop_back();
        continue;
      }
      const Edge& e = edges_[u][next++];
      if (color_[e.to] == 0) {
        color_[e.to] = 1;
        path_.push_back(e.to);
        stack.emplace_back(e.to, 0);
      } else if (color_[e.to] == 1) {
        report(e);
      }
    }
  }

  void report(const Edge& e) {
    std::string cycle;
    bool on = false;
    for (std::size_t p : path_) {
      on = on || p == e.to;
      if (on) cycle += spec_.steps[p].name + " -> ";
    }
    diags_.error(e.where, "dependency cycle: " + cycle + spec_.steps[e.to].name);
  }

  const StudySpec& spec_;
  const std::vector<std::vector<Edge>>& edges_;
  DiagnosticList& diags_;
  std::vector<int> color_;  // 0 unseen, 1 on the path, 2 done
  std::vector<std::size_t> path_;
};

}  // namespace

void check_dependencies(const StudySpec& spec, DiagnosticList& diags) {
  std::map<std::string, std::size_t> index;  // first step of each name
  std::vector<std::string> names;
  for (std::size_t i = 0; i < spec.steps.size(); ++i) {
    index.emplace(spec.steps[i].name, i);
    names.push_back(spec.steps[i].name);
  }
  std::vector<std::vector<Edge>> edges(spec.steps.size());
  for (std::size_t i = 0; i < spec.steps.size(); ++i) {
    const Step& s = spec.steps[i];
    for (const Text& dep : s.run.depends) {
      std::string target = parse_dependency(dep.value).step;
      auto it = index.find(target);
      if (it == index.end()) {
        diags.error(dep.where, "step '" + s.name + "' depends on unknown step '" + target + "'" +
                                   suggestion_suffix(target, names));
        continue;
      }
      edges[i].push_back(Edge{it->second, dep.where});
    }
  }
  CycleFinder(spec, edges, diags).run();
}

}  // namespace merlin::spec
