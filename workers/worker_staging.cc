// The Worker's staging half (docs/staging.md): a succeeded scratch task goes to the stager
// threads, which stage its outputs, then commit and ack it; a node whose scratch is unusable
// hands tasks back and pauses the scratch queues. Kept apart from worker.cc, which holds the
// slot loop.
#include "merlin/core/util/log.h"
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
  end_behind(key, d, staged_commit(d, task, seconds, write_finished));
}

void Worker::end_behind(std::uint64_t key, const Delivery& d, const Result<void>& r) {
  {
    std::lock_guard lock(mu_);
    staging_.erase(key);
    forget_lease_locked(d.receipt);
  }
  if (!r) {
    log::error("worker giving up error=\"{}\"", r.error().message);
    (void)broker_.release(d);
    fail(r.error());
  }
}

Result<void> Worker::behind(const Delivery& d, std::function<Result<void>()> job) {
  std::uint64_t key;
  {
    std::lock_guard lock(mu_);
    key = next_staging_++;
    staging_[key] = d;
  }
  bool queued = pool_->submit([this, key, d, job] { end_behind(key, d, job()); });
  if (queued) return ok();
  {  // the threads are draining (not while slots run): the job is done here
    std::lock_guard lock(mu_);
    staging_.erase(key);
  }
  return job();
}

// On a stager thread: outputs durable first, then MERLIN_FINISHED, then the commit (which
// releases dependents, which may read the outputs), then the ack.
Result<void> Worker::staged_commit(const Delivery& d, const RenderedTask& task, double seconds,
                                   bool write_finished) {
  const auto& m = d.message;
  if (is_fenced(d)) return drop_fenced(d, "before its staging");  // scratch kept as it is
  if (abort_) {  // stopped now: a restart runs it again, its scratch is made afresh
    log::warn("staging skipped, the run was interrupted step={} sample={}: not committed",
              task.step, m.lo);
    return broker_.release(d);
  }
  auto s = stager_->stage_out(task);
  if (!s) {
    stager_->drop_success_record(task);  // the scratch stays for inspection; a retry runs
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

std::vector<std::string> Worker::takeable_queues() {
  std::lock_guard lock(mu_);
  if (scratch_health_.usable(now_())) return queues_;
  std::vector<std::string> out;
  for (const auto& q : queues_)
    if (!scratch_queues_.count(q)) out.push_back(q);
  return out;
}

// The node's scratch is unusable: not the task's fault, so it goes back uncommitted (release
// does not count a delivery) and this worker stops, or stops taking scratch tasks for a while.
Result<void> Worker::scratch_unusable(const Delivery& d, const std::string& step, const Error& e) {
  const std::string study = plan_.graph().tokens().study_name;
  if (options_.scratch_retry.count() <= 0) {
    // Stopped before the task goes back, so that no other slot of ours takes it again. Not
    // logged here: the error ends the run, whose caller says it once (exit 4 when full).
    {
      std::lock_guard lock(mu_);
      if (!error_)
        error_ = Error{e.code,
                       "step " + step + ": " + e.message +
                           " (no task was run or recorded as failed for it; once that is "
                           "fixed, `merlin restart` runs what is left)",
                       false};
      stop_ = true;
    }
    scratch_cv_.notify_all();
    return broker_.release(d);
  }
  Clock::duration wait;
  bool first;
  {
    std::lock_guard lock(mu_);
    first = !scratch_health_.down();
    auto now = now_();
    wait = scratch_health_.failed(now) - now;
  }
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(wait).count();
  std::string paused;
  for (const auto& q : scratch_queues_) paused += (paused.empty() ? "" : ",") + q;
  if (first)
    log::error(
        "scratch unusable on this node study={} step={} error=\"{}\": the task goes back to "
        "the queue (not failed); not taking tasks of queues={} until it works, next try in {} s",
        study, step, e.message, paused, secs);
  else
    log::warn("scratch still unusable study={} step={} error=\"{}\": next try in {} s", study, step,
              e.message, secs);
  return broker_.release(d);
}

}  // namespace merlin
