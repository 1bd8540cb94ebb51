#include "merlin/run/study_requeue.h"

#include "merlin/core/plan/plan.h"
#include "merlin/run/progress_totals.h"
#include "merlin/run/run_record.h"
#include "merlin/run/study_recovery.h"

namespace merlin::run {

Result<bool> broker_holds_study(const PreparedStudy& s, Backend& backend) {
  auto progress = backend.store(study_key_of(s.tokens.workspace))->progress();
  if (!progress) return progress.error();
  return progress->size() == s.graph->instances().size();
}

Result<RequeueResult> requeue_study(const PreparedStudy& s, Backend& backend, bool progress_line) {
  const auto key = study_key_of(s.tokens.workspace);
  StudyRegistry& studies = backend.studies();
  auto owned_store = backend.store(key);
  StateStore& store = *owned_store;
  auto progress = store.progress();
  if (!progress) return progress.error();
  auto purged = studies.set_purged(key, false);
  if (!purged) return purged.error();
  auto dropped = studies.purge_queues(key, {});
  if (!dropped) return dropped.error();
  auto cleared = studies.clear_releases(key);
  if (!cleared) return cleared.error();
  // A fan-out instance whose file could not be read (its one task failed, no copy made) is
  // expanded again, from the file as it is now (docs/fanout.md).
  for (const auto& inst : s.graph->instances()) {
    const auto& p = (*progress)[inst.id.v];
    if (!s.graph->step_of(inst.id).fanout || !p.count_known || p.total == 0 ||
        s.renderer->fanout().expanded(inst.id))
      continue;
    auto f = store.forget_count(inst.id);
    if (!f) return f.error();
  }
  auto again = studies.reset_failed(key, s.graph->instances().size());
  if (!again) return again.error();
  // A task that finished while its worker died before the commit reached the broker.
  auto marked = commit_marked_tasks(s, store, progress_line);
  if (!marked) return marked.error();
  progress = store.progress();  // after the reset: failed samples are unfinished again
  if (!progress) return progress.error();
  Plan plan(*s.graph, &s.renderer->fanout());
  auto ready = plan.ready_at_start(store);
  if (!ready) return ready.error();
  auto broker = backend.broker(key, "restart", kDefaultLease);
  for (const auto& r : *ready) {
    auto p = broker->publish(r.queue, {r.message});
    if (!p) return p.error();
  }
  const auto totals = totals_of(*progress);
  RequeueResult out;
  out.done = totals.done;
  out.total = totals.total;
  out.failed_again = *again;
  out.marked = *marked;
  out.queued = ready->size();
  out.dropped = *dropped;
  return out;
}

Result<void> check_restart_here(const std::string& workspace, bool queued_in_broker, bool local) {
  if (queued_in_broker && local)
    return Error::bad_input(
        workspace + " was queued in a broker (`merlin run` without --local): `merlin restart " +
        workspace +
        "` (without --local) queues its unfinished tasks there again; running it here as "
        "well could run a task twice");
  return {};
}

}  // namespace merlin::run
