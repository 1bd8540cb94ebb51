#include "merlin/core/plan/plan.h"

#include <algorithm>

namespace merlin {

Plan::Plan(const StudyGraph& graph, const FanoutSource* fanout) : graph_(graph), fanout_(fanout) {}

const std::string& Plan::queue_of(InstanceId id) const {
  return graph_.step_of(id).spec->run.task_queue;
}

bool Plan::has_per_sample_parent(const Instance& inst) const {
  for (const auto& e : inst.parents)
    if (e.kind == EdgeKind::kPerSample) return true;
  return false;
}

Routed Plan::whole_range(const Instance& inst) const {
  TaskMessage m;
  m.instance = inst.id;
  m.lo = 0;
  m.hi = inst.count;
  m.gated = has_per_sample_parent(inst);
  return {queue_of(inst.id), m};
}

Result<void> Plan::release_trials(const Instance& inst, StateStore& store,
                                  std::vector<Routed>& out) const {
  const tune::TuneShape& shape = *graph_.step_of(inst.id).tune;
  for (std::uint32_t b = 0; b < shape.brackets(); ++b) {
    // Bracket b's trials start at rung b.
    Routed r = whole_range(inst);
    r.message.lo = shape.task(shape.bracket_first[b], b);
    r.message.hi = r.message.lo + shape.bracket_size(b);
    if (r.message.hi > r.message.lo) out.push_back(std::move(r));
  }
  return republish_promotions(inst, store, out);
}

Result<void> Plan::republish_promotions(const Instance& inst, StateStore& store,
                                        std::vector<Routed>& out) const {
  auto pending = store.pending_promotions(inst.id);
  if (!pending) return pending.error();
  for (SampleId task : *pending) {
    out.push_back(one_sample(inst, task));
    out.back().first = true;
  }
  return ok();
}

Result<void> Plan::release(const Instance& inst, StateStore& store, std::vector<Routed>& out,
                           bool claim) const {
  if (graph_.step_of(inst.id).tune) return release_trials(inst, store, out);
  Routed r = whole_range(inst);
  if (!graph_.unknown_at_start(inst.id)) {
    out.push_back(std::move(r));
    return ok();
  }
  auto n = count_of(inst, store, out, claim);
  if (!n) return n.error();
  if (*n == 0) return ok();  // a loop iteration that will not run
  r.message.hi = *n;
  out.push_back(std::move(r));
  return ok();
}

Result<std::uint64_t> Plan::count_of(const Instance& inst, StateStore& store,
                                     std::vector<Routed>& out, bool claim) const {
  const auto& node = graph_.step_of(inst.id);
  if ((node.fanout || node.loop >= 0) && fanout_ == nullptr)
    return Error::runtime("step '" + node.name +
                          "' takes its samples from a file (samples_from) or loops, but this "
                          "plan cannot read what steps wrote");
  auto deciders = graph_.previous_deciders(inst.id);
  if (!deciders.empty()) {
    bool again = true;
    for (InstanceId d : deciders) again = again && fanout_->loop_again(d);
    if (!again) {
      auto s = skip_rest_of_loop(inst, store, out, claim);
      if (!s) return s.error();
      return std::uint64_t{0};
    }
  }
  std::uint64_t want = inst.count;
  if (node.fanout) {
    // A failed expansion is the step's failure, not the worker's: one task that fails.
    auto rows = fanout_->expand(inst.id);
    want = rows ? *rows : 1;
  }
  return store.set_count(inst.id, want);
}

Result<void> Plan::skip_rest_of_loop(const Instance& head, StateStore& store,
                                     std::vector<Routed>& out, bool claim) const {
  const Loop& loop = graph_.loops()[static_cast<std::size_t>(graph_.step_of(head.id).loop)];
  std::vector<InstanceId> skipped;
  for (std::uint32_t it = head.iteration; it <= loop.iterations; ++it)
    for (StepId sid : loop.body)
      for (std::uint32_t k = 0; k < graph_.step(sid).instance_count; ++k)
        skipped.push_back(graph_.in_iteration(sid, k, it));
  for (InstanceId id : skipped) {
    auto n = store.set_count(id, 0);
    if (!n) return n.error();
  }
  auto is_skipped = [&](InstanceId id) {
    const auto& i = graph_.instance(id);
    return graph_.step_of(id).loop == graph_.step_of(head.id).loop && i.iteration >= head.iteration;
  };
  for (InstanceId id : skipped) {
    for (const auto& e : graph_.instance(id).children) {
      if (is_skipped(e.instance)) continue;
      const auto& child = graph_.instance(e.instance);
      auto complete = store.is_complete(child.id);
      if (!complete) return complete.error();
      if (*complete) continue;
      auto ready = whole_parents_complete(child, store);
      if (!ready) return ready.error();
      if (!*ready) continue;
      if (claim) {
        auto claimed = store.claim_release(child.id);
        if (!claimed) return claimed.error();
        if (!*claimed) continue;
      }
      auto r = release(child, store, out, claim);
      if (!r) return r;
    }
  }
  return ok();
}

Routed Plan::one_sample(const Instance& inst, SampleId s) const {
  TaskMessage m;
  m.instance = inst.id;
  m.lo = s;
  m.hi = s + 1;
  return {queue_of(inst.id), m};
}

Result<bool> Plan::whole_parents_complete(const Instance& inst, StateStore& store) const {
  for (const auto& e : inst.parents) {
    if (e.kind != EdgeKind::kWhole) continue;
    auto c = store.is_complete(e.instance);
    if (!c) return c.error();
    if (!*c) return false;
  }
  return true;
}

Result<bool> Plan::sample_parents_done(const Instance& inst, SampleId s, StateStore& store) const {
  for (const auto& e : inst.parents) {
    if (e.kind != EdgeKind::kPerSample) continue;
    auto d = store.is_done(e.instance, s);
    if (!d) return d.error();
    if (!*d) return false;
  }
  return true;
}

Result<std::vector<Routed>> Plan::ready_at_start(StateStore& store) const {
  std::vector<Routed> out;
  auto progress = store.progress();  // once: O(instances), not per instance
  if (!progress) return progress.error();
  for (const auto& inst : graph_.instances()) {
    auto complete = store.is_complete(inst.id);
    if (!complete) return complete.error();
    if (*complete) continue;
    auto ready = whole_parents_complete(inst, store);
    if (!ready) return ready.error();
    if (!*ready) continue;
    if (has_per_sample_parent(inst)) {
      // Only worth a gated sweep if some per-sample parent made progress already (restart).
      bool any = false;
      for (const auto& e : inst.parents)
        any |= e.kind == EdgeKind::kPerSample && (*progress)[e.instance.v].done > 0;
      if (!any) continue;
    }
    auto claimed = store.claim_release(inst.id);
    if (!claimed) return claimed.error();
    if (!*claimed) continue;
    auto r = release(inst, store, out);
    if (!r) return r.error();
  }
  return out;
}

std::vector<TaskMessage> Plan::split(const TaskMessage& m) const {
  std::vector<TaskMessage> out;
  const auto& node = graph_.step_of(m.instance);
  // A fan-out step's own rows, and a tuned step's tasks, split along their own count.
  const bool own = (node.fanout && fanout_ != nullptr) || node.tune;
  const SampleHierarchy h =
      !own ? SampleHierarchy()
      : node.tune
          ? SampleHierarchy(graph_.instance(m.instance).count, graph_.hierarchy().level_max_dirs())
          : fanout_->hierarchy(m.instance);
  for (auto [lo, hi] : (own ? h : graph_.hierarchy()).split(m.lo, m.hi)) {
    TaskMessage c = m;
    c.lo = lo;
    c.hi = hi;
    out.push_back(c);
  }
  return out;
}

Result<bool> Plan::leaf_runnable(const TaskMessage& m, StateStore& store,
                                 std::optional<bool> known_done) const {
  if (known_done) {
    if (*known_done) return false;
  } else {
    auto done = store.is_done(m.instance, m.lo);
    if (!done) return done.error();
    if (*done) return false;
  }
  if (!m.gated) return true;
  return sample_parents_done(graph_.instance(m.instance), m.lo, store);
}

Result<std::vector<Routed>> Plan::after_commit(InstanceId id, SampleId sample,
                                               const CommitResult& commit,
                                               StateStore& store) const {
  std::vector<Routed> out;
  if (!commit.newly_done) return out;  // a duplicate: its first commit did the releasing
  const auto& inst = graph_.instance(id);
  for (SampleId task : commit.promoted) {
    out.push_back(one_sample(inst, task));
    out.back().first = true;  // ASHA: a promotion goes before new trials
  }
  for (const auto& e : inst.children) {
    const auto& child = graph_.instance(e.instance);
    if (e.kind == EdgeKind::kPerSample) {
      auto ready = whole_parents_complete(child, store);
      if (!ready) return ready.error();
      if (!*ready) continue;
      auto same = sample_parents_done(child, sample, store);
      if (!same) return same.error();
      if (!*same) continue;
      if (graph_.unknown_at_start(child.id)) {  // a loop copy: its count first
        auto n = count_of(child, store, out);
        if (!n) return n.error();
        if (sample >= *n) continue;
      }
      out.push_back(one_sample(child, sample));
    }
  }
  if (commit.remaining == 0) {
    auto whole = after_complete(id, store);
    if (!whole) return whole.error();
    out.insert(out.end(), whole->begin(), whole->end());
  }
  return out;
}

Result<std::vector<Routed>> Plan::after_complete(InstanceId id, StateStore& store) const {
  std::vector<Routed> out;
  for (const auto& e : graph_.instance(id).children) {
    if (e.kind == EdgeKind::kPerSample) continue;
    const auto& child = graph_.instance(e.instance);
    auto ready = whole_parents_complete(child, store);
    if (!ready) return ready.error();
    if (!*ready) continue;
    auto claimed = store.claim_release(child.id);
    if (!claimed) return claimed.error();
    if (!*claimed) continue;
    auto r = release(child, store, out);
    if (!r) return r.error();
  }
  return out;
}

std::optional<std::vector<Routed>> Plan::follow_ups_before_commit(InstanceId id,
                                                                  SampleId sample) const {
  std::vector<Routed> out;
  if (graph_.step_of(id).tune) return std::nullopt;  // promotions are the store's decision
  for (const auto& e : graph_.instance(id).children) {
    if (e.kind != EdgeKind::kPerSample) continue;
    const auto& child = graph_.instance(e.instance);
    if (graph_.unknown_at_start(child.id)) return std::nullopt;
    for (const auto& p : child.parents)
      if (p.instance != id) return std::nullopt;
    out.push_back(one_sample(child, sample));
  }
  return out;
}

bool Plan::releases_when_complete(InstanceId id) const {
  for (const auto& e : graph_.instance(id).children)
    if (e.kind != EdgeKind::kPerSample) return true;
  return false;
}

Result<std::vector<Routed>> Plan::after_redelivery(InstanceId id, SampleId sample,
                                                   StateStore& store) const {
  std::vector<Routed> out;
  if (graph_.step_of(id).tune) {
    // Its first run's promotions may be the ones lost.
    auto r = republish_promotions(graph_.instance(id), store, out);
    if (!r) return r.error();
  }
  for (const auto& e : graph_.instance(id).children) {
    const auto& child = graph_.instance(e.instance);
    auto ready = whole_parents_complete(child, store);
    if (!ready) return ready.error();
    if (!*ready) continue;
    if (e.kind == EdgeKind::kPerSample) {
      auto same = sample_parents_done(child, sample, store);
      if (!same) return same.error();
      if (!*same) continue;
      if (graph_.unknown_at_start(child.id)) {
        auto n = count_of(child, store, out, false);
        if (!n) return n.error();
        if (sample >= *n) continue;
      }
      out.push_back(one_sample(child, sample));
    } else {
      // A loop head that was skipped is complete, but what its skip released may be lost too.
      if (graph_.previous_deciders(child.id).empty()) {
        auto complete = store.is_complete(child.id);
        if (!complete) return complete.error();
        if (*complete) continue;
      }
      auto r = release(child, store, out, false);
      if (!r) return r.error();
    }
  }
  // Without claims, a step after a skipped loop is reached through every skipped iteration.
  std::vector<Routed> unique;
  for (auto& r : out)
    if (std::none_of(unique.begin(), unique.end(),
                     [&](const Routed& u) { return u.message == r.message; }))
      unique.push_back(std::move(r));
  return unique;
}

}  // namespace merlin
