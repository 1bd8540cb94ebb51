// The Worker's staging half (docs/staging.md): a succeeded scratch task goes to the stager
// threads, which stage its outputs, then commit and ack it. Kept apart from worker.cc, which
// holds the slot loop.
#include "merlin/util/log.h"
#include "workers/worker.h"

namespace merlin {

Result<void> Worker::stage_then_commit(const Delivery& d, RenderedTask task, double seconds,
                                       bool write_finished) {
  std::uint64_t key;
  {
    std::lock_guard lock(mu_);
    key = next_staging_++;
    staging_[key] = d;
  }
  if (!pool_) {  // no stager threads (a worker driven without run()): stage here
    finish_staging(key, d, task, seconds, write_finished);
    return ok();
  }
  bool queued = pool_->submit([this, key, d, task = std::move(task), seconds, write_finished] {
    finish_staging(key, d, task, seconds, write_finished);
  });
  if (queued) return ok();
  {
    std::lock_guard lock(mu_);
    staging_.erase(key);
  }
  return broker_.release(d);
}

void Worker::finish_staging(std::uint64_t key, const Delivery& d, const RenderedTask& task,
                            double seconds, bool write_finished) {
  auto r = staged_commit(d, task, seconds, write_finished);
  {
    std::lock_guard lock(mu_);
    staging_.erase(key);
  }
  if (!r) {
    log::error("worker giving up error=\"{}\"", r.error().message);
    (void)broker_.release(d);
    fail(r.error());
  }
}

// On a stager thread: outputs durable first, then MERLIN_FINISHED, then the commit (which
// releases dependents, which may read the outputs), then the ack.
Result<void> Worker::staged_commit(const Delivery& d, const RenderedTask& task, double seconds,
                                   bool write_finished) {
  const auto& m = d.message;
  if (abort_) {  // stopped now: a restart runs it again, its scratch is made afresh
    log::warn("staging skipped, the run was interrupted step={} sample={}: not committed",
              task.step, m.lo);
    return broker_.release(d);
  }
  auto s = stager_->stage_out(task);
  if (!s) {
    log::error(
        "staging failed study={} step={} sample={} error=\"{}\" scratch={} (left for "
        "inspection)",
        plan_.graph().tokens().study_name, task.step, m.lo, s.error().message, task.scratch_dir);
    {
      std::lock_guard lock(mu_);
      report_.staging_failed++;
    }
    return commit_and_ack(d, Outcome::kSoftFail, seconds);
  }
  auto c = stager_->clean(task);
  if (!c) log::warn("step={} sample={} {}", task.step, m.lo, c.error().message);
  if (write_finished) {
    auto f = executor_.mark_finished(task);
    if (!f) return f;
  }
  {
    std::lock_guard lock(mu_);
    report_.staged++;
    report_.staged_bytes += s->bytes;
  }
  log::debug("staged step={} sample={} files={} bytes={}", task.step, m.lo, s->files.size(),
             s->bytes);
  return commit_and_ack(d, Outcome::kSuccess, seconds);
}

}  // namespace merlin
