#include "merlin/run/fleet_policy.h"

#include <algorithm>

namespace merlin::run {

std::vector<std::string> open_queues(const std::vector<std::string>& queues,
                                     const std::set<std::string>& stopped) {
  std::vector<std::string> out;
  for (const auto& q : queues)
    if (!stopped.count(q)) out.push_back(q);
  return out;
}

bool servable(const std::vector<WorkerPlan>& plans, const std::set<std::string>& stopped) {
  for (const auto& p : plans)
    for (const auto& q : p.queues)
      if (!stopped.count(q)) return true;
  return false;
}

std::uint64_t work_outside(const std::vector<QueueStats>& stats,
                           const std::set<std::string>& stopped) {
  std::uint64_t n = 0;
  for (const auto& q : stats)
    if (!stopped.count(q.queue)) n += q.queued + q.reserved + q.delayed;
  return n;
}

std::optional<WorkerOptions> worker_options_for(const WorkerPlan& plan,
                                                const std::vector<std::string>& study_queues,
                                                const std::set<std::string>& stopped,
                                                const RunWorkersOptions& o) {
  WorkerOptions wo;
  wo.queues = open_queues(plan.queues, stopped);
  if (wo.queues.empty()) return std::nullopt;
  wo.slots = plan.slots;
  wo.idle_queues = open_queues(study_queues, stopped);
  wo.lease_renewal = lease_renewal_for(o.lease());
  wo.max_deliveries = o.delivery_limit();
  wo.scratch_retry = kDefaultScratchRetry;  // another node may take what ours cannot
  wo.commit_behind = true;                   // the broker is a round trip away
  // Enough short tasks reserved ahead to cover a round trip at 1 ms each way (four per slot
  // measured 0.89 of the no-delay rate there, one per slot 0.57; docs/scaling.md), capped so
  // that a wide worker does not hold a large share of a queue.
  wo.take_ahead = std::min(4 * plan.slots, 64);
  return wo;
}

ServeTally tally(const std::vector<WorkerReport>& reports) {
  ServeTally t;
  for (const auto& w : reports) {
    t.worked |= w.executed + w.skipped + w.splits > 0;
    t.stopped_queues.insert(w.stopped_queues.begin(), w.stopped_queues.end());
    t.stopped_by_step |= w.stopped_by_step;
  }
  return t;
}

}  // namespace merlin::run
