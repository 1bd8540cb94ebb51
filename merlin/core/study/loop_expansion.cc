// Pre-expansion of bounded loops (docs/fanout.md): iterations 2..K of a loop body are copies of
// its instances, O(K × body) objects, wired so that the static graph holds every iteration.
#include <algorithm>
#include <map>

#include "merlin/core/spec/loop_body.h"
#include "merlin/core/study/study_graph.h"

namespace merlin {
namespace {

constexpr std::uint64_t kMaxLoopInstances = 100'000;

std::string at(const spec::StudySpec& spec, const spec::SourceLocation& where) {
  return spec.path + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
}

}  // namespace

std::vector<InstanceId> StudyGraph::previous_deciders(InstanceId id) const {
  const auto& inst = instances_[id.v];
  const auto& node = steps_[inst.step.v];
  if (inst.iteration < 2 || node.loop < 0) return {};
  const Loop& loop = loops_[static_cast<std::size_t>(node.loop)];
  if (loop.back_to != node.id) return {};
  const auto& d = steps_[loop.decider.v];
  std::vector<InstanceId> out;
  // One decider for all (it is unparameterised), or the same combination's.
  if (d.instance_count == 1)
    out.push_back(in_iteration(d.id, 0, inst.iteration - 1));
  else if (d.instance_count == node.instance_count)
    out.push_back(in_iteration(d.id, inst.index, inst.iteration - 1));
  else
    for (std::uint32_t k = 0; k < d.instance_count; ++k)
      out.push_back(in_iteration(d.id, k, inst.iteration - 1));
  return out;
}

Result<void> StudyGraph::expand_loops() {
  const auto& spec = *spec_;
  std::map<std::string, std::uint32_t> index;
  for (std::uint32_t i = 0; i < spec.steps.size(); ++i) index[spec.steps[i].name] = i;
  auto order = topological_order(spec);
  for (std::uint32_t i = 0; i < spec.steps.size(); ++i) {
    const auto& ls = spec.steps[i].run.loop;
    if (!ls) continue;
    auto body = spec::loop_body(spec, i);
    if (!body)
      return Error::bad_input(at(spec, ls->where) + ": the loop of step '" + spec.steps[i].name +
                              "' has no body (see validate)");
    if (steps_[i].sampled)
      return Error::bad_input(at(spec, ls->where) + ": step '" + spec.steps[i].name +
                              "' decides a loop, so it must run once (it may not use samples)");
    Loop loop;
    loop.decider = StepId{i};
    loop.back_to = StepId{index.at(ls->back_to.value)};
    loop.iterations = static_cast<std::uint32_t>(ls->max_iterations);
    std::uint64_t per_iteration = 0;
    for (StepId sid : order)
      if (std::find(body->begin(), body->end(), sid.v) != body->end()) {
        loop.body.push_back(sid);
        per_iteration += steps_[sid.v].instance_count;
      }
    if (per_iteration * loop.iterations > kMaxLoopInstances)
      return Error::bad_input(at(spec, ls->where) + ": the loop of step '" + spec.steps[i].name +
                              "' would make " + std::to_string(per_iteration * loop.iterations) +
                              " step instances (" + std::to_string(per_iteration) + " × " +
                              std::to_string(loop.iterations) + " iterations), more than " +
                              std::to_string(kMaxLoopInstances) + "; lower max_iterations");
    const int li = static_cast<int>(loops_.size());
    loops_.push_back(std::move(loop));  // previous_deciders reads it below
    const Loop& lp = loops_.back();
    // Every iteration in its own directory, iteration 1 too: `<step>/iter.<i>[/<labels>]`.
    for (StepId sid : lp.body) {
      auto& n = steps_[sid.v];
      n.loop = li;
      n.iteration_first.assign(1, n.first_instance);
      for (std::uint32_t k = 0; k < n.instance_count; ++k) {
        auto& inst = instances_[n.first_instance.v + k];
        inst.rel_dir = n.name + "/iter.1" + (inst.labels.empty() ? "" : "/" + inst.labels);
      }
    }
    auto in_body = [&](StepId s) { return steps_[s.v].loop == li; };

    // Edges leaving the body go to every iteration, whole: the steps after a loop run once,
    // after its last iteration (later ones skipped count as done).
    std::vector<std::pair<InstanceId, InstanceId>> out_edges;  // (body parent, outside child)
    for (auto& child : instances_) {
      if (in_body(child.step)) continue;
      for (auto& e : child.parents) {
        if (!in_body(instances_[e.instance.v].step)) continue;
        e.kind = EdgeKind::kWhole;
        for (auto& ce : instances_[e.instance.v].children)
          if (ce.instance == child.id) ce.kind = EdgeKind::kWhole;
        out_edges.emplace_back(e.instance, child.id);
      }
    }

    for (std::uint32_t it = 2; it <= lp.iterations; ++it) {
      for (StepId sid : lp.body) {
        auto& n = steps_[sid.v];
        n.iteration_first.push_back(InstanceId{static_cast<std::uint32_t>(instances_.size())});
        for (std::uint32_t k = 0; k < n.instance_count; ++k) {
          Instance c = instances_[n.first_instance.v + k];
          c.id = InstanceId{static_cast<std::uint32_t>(instances_.size())};
          c.iteration = it;
          const std::string iter = "iter." + std::to_string(it);
          c.rel_dir = n.name + "/" + iter + (c.labels.empty() ? "" : "/" + c.labels);
          c.base_name = n.name + "_" + iter + (c.labels.empty() ? "" : "_" + c.labels);
          c.parents.clear();
          c.children.clear();
          instances_.push_back(std::move(c));
        }
      }
      // Parents: the same iteration's copy inside the body, the same instance outside it.
      for (StepId sid : lp.body) {
        const auto& n = steps_[sid.v];
        for (std::uint32_t k = 0; k < n.instance_count; ++k) {
          const InstanceId original{n.first_instance.v + k};
          const InstanceId copy = in_iteration(sid, k, it);
          std::vector<Edge> parents = instances_[original.v].parents;
          for (const auto& e : parents) {
            const auto& p = instances_[e.instance.v];
            InstanceId from = in_body(p.step) ? in_iteration(p.step, p.index, it) : e.instance;
            instances_[copy.v].parents.push_back({from, e.kind});
            instances_[from.v].children.push_back({copy, e.kind});
          }
          for (InstanceId d : previous_deciders(copy)) {
            instances_[copy.v].parents.push_back({d, EdgeKind::kWhole});
            instances_[d.v].children.push_back({copy, EdgeKind::kWhole});
          }
        }
      }
      for (const auto& [parent, child] : out_edges) {
        const auto& p = instances_[parent.v];
        InstanceId from = in_iteration(p.step, p.index, it);
        instances_[child.v].parents.push_back({from, EdgeKind::kWhole});
        instances_[from.v].children.push_back({child, EdgeKind::kWhole});
      }
    }
  }
  return ok();
}

}  // namespace merlin
