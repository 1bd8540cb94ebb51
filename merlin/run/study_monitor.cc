#include "merlin/run/study_monitor.h"

#include "merlin/run/dist_study.h"

namespace merlin::run {

MonitorStep decide(MonitorState& state, const MonitorPoll& poll,
                   std::chrono::steady_clock::time_point now, double stall_seconds) {
  if (poll.pending == 0) return MonitorStep::kNoWorkLeft;
  if (poll.alive > 0) {
    state.unserved_since.reset();
    return MonitorStep::kWait;
  }
  if (!state.unserved_since) {
    state.unserved_since = now;
    return MonitorStep::kWait;
  }
  if (std::chrono::duration<double>(now - *state.unserved_since).count() > stall_seconds)
    return MonitorStep::kStalled;
  return MonitorStep::kWait;
}

int live_workers(const std::vector<WorkerRecord>& workers, const std::string& spec_name,
                 std::int64_t now_ms, std::chrono::milliseconds dead_after) {
  int alive = 0;
  for (const auto& w : workers)
    if (w.spec_name == spec_name && is_alive(w.seen_ms, now_ms, dead_after)) ++alive;
  return alive;
}

Result<MonitorPoll> poll_studies(Backend& backend, const MonitorOptions& o, std::int64_t now_ms) {
  StudyRegistry& studies = backend.studies();
  auto list = studies_named(studies, o.study_name);
  if (!list) return list.error();
  MonitorPoll poll;
  std::vector<InstanceProgress> all;
  for (const auto& s : *list) {
    if (o.queues.empty()) {
      auto p = studies.pending(s.key);
      if (!p) return p.error();
      poll.pending += *p;
    } else {
      auto q = studies.queue_stats(s.key);
      if (!q) return q.error();
      for (const auto& stats : *q)
        if (o.queues.count(stats.queue))
          poll.pending += stats.queued + stats.reserved + stats.delayed;
    }
    auto progress = backend.store(s.key)->progress();
    if (!progress) return progress.error();
    all.insert(all.end(), progress->begin(), progress->end());
  }
  poll.totals = totals_of(all);
  if (poll.pending == 0) return poll;  // no workers needed to decide
  auto workers = backend.workers().list();
  if (!workers) return workers.error();
  poll.alive = live_workers(*workers, o.study_name, now_ms, o.dead_after);
  return poll;
}

Result<MonitorOutcome> watch_studies(Backend& backend, const MonitorOptions& o,
                                     const std::function<bool(const MonitorPoll&)>& between_polls) {
  MonitorState state;
  while (true) {
    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    auto poll = poll_studies(backend, o, now_ms);
    if (!poll) return poll.error();
    MonitorOutcome out;
    out.last = *poll;
    switch (decide(state, *poll, std::chrono::steady_clock::now(), o.stall_seconds)) {
      case MonitorStep::kNoWorkLeft: {
        // Nothing queued is success only if nothing was lost: a flushed broker queues nothing.
        auto lost = find_lost_studies(backend, o.study_name, o.output_path);
        if (!lost) return lost.error();
        out.kind = lost->empty() ? MonitorOutcome::Kind::kDone : MonitorOutcome::Kind::kLost;
        out.lost = std::move(*lost);
        return out;
      }
      case MonitorStep::kStalled:
        out.kind = MonitorOutcome::Kind::kStalled;
        return out;
      case MonitorStep::kWait:
        break;
    }
    if (!between_polls(*poll)) {
      out.kind = MonitorOutcome::Kind::kInterrupted;
      return out;
    }
  }
}

}  // namespace merlin::run
