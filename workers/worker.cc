#include "workers/worker.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <new>
#include <system_error>
#include <thread>

#include "merlin/core/tune/pruned_marks.h"
#include "merlin/core/tune/tune_report.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "workers/file_stager.h"
#include "workers/return_code_policy.h"
#include "workers/task_decisions.h"
#include "workers/trial_result.h"

namespace merlin {
namespace {

// What became of a step the worker asked to end, in words for the log.
std::string how_it_ended(const Result<ExecResult>& r) {
  if (!r) return "did not start (" + r.error().message + ")";
  if (r->signal == SIGKILL)
    return "was killed by SIGKILL (still running when the grace period after SIGTERM ended)";
  if (r->signal != 0) {
    const char* abbrev = ::sigabbrev_np(r->signal);
    return std::string("was ended by ") +
           (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(r->signal));
  }
  return "exited with code " + std::to_string(r->exit_code);
}

}  // namespace

Worker::Worker(Broker& broker, StateStore& store, const Plan& plan, const TaskRenderer& renderer,
               StepExecutor& executor, WorkerOptions options, Now now)
    : broker_(broker),
      store_(store),
      plan_(plan),
      renderer_(renderer),
      executor_(executor),
      options_(std::move(options)),
      now_(std::move(now)),
      finisher_(broker, store),
      scratch_health_(options_.scratch_retry,
                      std::max(options_.scratch_retry, options_.scratch_retry_max)) {
  const auto& graph = plan.graph();
  running_ = std::make_unique<std::atomic<std::uint32_t>[]>(graph.instances().size());
  // A tuned step's commits decide its promotions in the store (docs/tuning.md).
  for (const auto& inst : graph.instances())
    if (const auto& shape = graph.step_of(inst.id).tune) store_.set_tuned(inst.id, *shape);
  stager_ = options_.stager;
  if (stager_ == nullptr) {
    own_stager_ = std::make_unique<FileStager>();
    stager_ = own_stager_.get();
  }
  queues_ = options_.queues;
  if (queues_.empty()) {
    for (const auto& s : graph.steps())
      if (std::find(queues_.begin(), queues_.end(), s.spec->run.task_queue) == queues_.end())
        queues_.push_back(s.spec->run.task_queue);
  }
  for (const auto& s : graph.steps())
    if (s.spec->run.scratch) scratch_queues_.insert(s.spec->run.task_queue);
}

std::vector<std::uint32_t> Worker::running() const {
  std::vector<std::uint32_t> out(plan_.graph().instances().size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = running_[i].load();
  return out;
}

void Worker::abort() {
  abort_ = true;
  stop_ = true;
  executor_.terminate_running();
}

bool Worker::queue_active(const std::string& queue) {
  std::lock_guard lock(mu_);
  return std::find(queues_.begin(), queues_.end(), queue) != queues_.end();
}

void Worker::stop_queue(const std::string& queue) {
  std::lock_guard lock(mu_);
  report_.stopped_queues.insert(queue);
  queues_.erase(std::remove(queues_.begin(), queues_.end(), queue), queues_.end());
}

// The queues whose emptiness means idle: `idle_queues` (or the served ones) without those a
// hard fail stopped, whose leftover work nobody here will take.
std::vector<std::string> Worker::idle_watch(const std::vector<std::string>& served) {
  if (options_.idle_queues.empty()) return served;
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& q : options_.idle_queues)
    if (!report_.stopped_queues.count(q)) out.push_back(q);
  return out;
}

std::vector<std::string> Worker::active_queues() {
  std::lock_guard lock(mu_);
  return queues_;
}

void Worker::fail(const Error& e) {
  {
    std::lock_guard lock(mu_);
    if (!error_) error_ = e;
    stop_ = true;
  }
  scratch_cv_.notify_all();
}

Result<WorkerReport> Worker::run() {
  const int slots = std::max(1, options_.slots);
  std::vector<std::thread> threads;
  std::thread renewer, fencer, ahead;
  std::optional<Error> start_error;
  // Every thread waits at the gate until all are created: when the system refuses one
  // (std::system_error, e.g. EAGAIN at the thread limit), no task has been taken yet and the
  // threads already made leave without touching the broker.
  bool any_scratch = false;
  for (const auto& s : plan_.graph().steps()) any_scratch |= s.spec->run.scratch.has_value();
  try {
    if (any_scratch || options_.commit_behind) {
      int n = options_.stager_threads > 0 ? options_.stager_threads : std::min(slots, 4);
      std::size_t capacity = static_cast<std::size_t>(slots);
      // Jobs behind the slots mostly wait on the network: a thread per slot more (up to 16),
      // so a split's two round trips do not hold up the commits queued behind it.
      if (options_.commit_behind) {
        n += std::min(slots, 16);
        capacity *= 2;
      }
      pool_ = std::make_unique<StagingPool>(n, capacity);
    }
    if (TrialWatch::period(plan_.graph()))
      watch_ = std::make_unique<TrialWatch>(store_, plan_.graph(), renderer_, executor_);
    threads.reserve(static_cast<std::size_t>(slots));
    for (int i = 0; i < slots; ++i)
      threads.emplace_back([this, i] {
        if (pass_start_gate()) slot_loop(i);
      });
    if (options_.lease_renewal.count() > 0)
      renewer = std::thread([this] {
        if (pass_start_gate()) renewal_loop();
      });
    if (fence_check_interval(options_.fence).count() > 0)
      fencer = std::thread([this] {
        if (pass_start_gate()) fence_loop();
      });
    if (options_.take_ahead > 0)
      ahead = std::thread([this] {
        if (pass_start_gate()) take_ahead_loop();
      });
  } catch (const std::system_error& e) {
    start_error = Error::runtime("cannot start " + std::to_string(slots) +
                                 " task slots: the system refused a thread after " +
                                 std::to_string(threads.size()) + " (" + e.what() +
                                 "); run fewer tasks at once");
  } catch (const std::bad_alloc&) {
    start_error = Error::runtime("cannot start " + std::to_string(slots) +
                                 " task slots: out of memory; run fewer tasks at once");
  }
  {
    std::lock_guard lock(mu_);
    start_state_ = start_error ? StartState::kCancelled : StartState::kGo;
  }
  start_cv_.notify_all();
  for (auto& t : threads) t.join();
  if (ahead.joinable()) {
    {
      std::lock_guard lock(mu_);
      ahead_done_ = true;
    }
    ahead_cv_.notify_all();
    ahead.join();
  }
  watch_.reset();
  // Deliveries a slot reserved for others that left meanwhile (stopped, failed) go back.
  std::deque<Delivery> left;
  {
    std::lock_guard lock(mu_);
    left.swap(prefetched_);
  }
  for (const auto& d : left) (void)broker_.release(d);
  // Slots are done: what they handed to the stager is staged and committed (or, after
  // abort(), released) before run() returns; the leases stay renewed meanwhile.
  if (pool_) {
    pool_->drain();
    std::lock_guard lock(mu_);
    report_.staging_busy_seconds = pool_->busy_seconds();
    if (report_.staged + report_.staging_failed > 0)
      log::info("staging: tasks={} failed={} bytes={} stager_busy_seconds={:.3f} restaged={}",
                report_.staged, report_.staging_failed, report_.staged_bytes,
                report_.staging_busy_seconds, report_.restaged);
  }
  if (start_error) {
    {
      std::lock_guard lock(mu_);
      slots_done_ = true;
    }
    renew_cv_.notify_all();
    if (renewer.joinable()) renewer.join();
    if (fencer.joinable()) fencer.join();
    return *start_error;
  }
  {
    std::lock_guard lock(mu_);
    slots_done_ = true;
  }
  renew_cv_.notify_all();
  if (renewer.joinable()) renewer.join();
  if (fencer.joinable()) fencer.join();
  if (error_) return *error_;
  return report_;
}

bool Worker::pass_start_gate() {
  std::unique_lock lock(mu_);
  start_cv_.wait(lock, [this] { return start_state_ != StartState::kWaiting; });
  return start_state_ == StartState::kGo;
}

void Worker::renewal_loop() {
  std::unique_lock lock(mu_);
  while (!renew_cv_.wait_for(lock, options_.lease_renewal, [this] { return slots_done_; })) {
    std::vector<Delivery> running;
    for (const auto& [slot, d] : in_flight_) running.push_back(d);
    for (const auto& [key, d] : staging_) running.push_back(d);
    for (const auto& d : prefetched_) running.push_back(d);
    lock.unlock();
    for (const auto& d : running) {
      const auto sent = now_();
      auto r = broker_.extend_lease(d);
      // Not fatal: the task goes on; if its lease runs out meanwhile, the fence thread ends it.
      if (!r) {
        log::warn("lease renewal failed queue={} error=\"{}\"", d.queue, r.error().message);
      } else if (!*r) {
        fence(d, "the broker gave it to another worker (its lease had run out)");
      } else {
        std::lock_guard relock(mu_);
        auto it = confirmed_.find(d.receipt);
        if (it != confirmed_.end()) it->second = std::max(it->second, sent);
      }
    }
    lock.lock();
  }
}

void Worker::fence_loop() {
  const auto every = fence_check_interval(options_.fence);
  std::unique_lock lock(mu_);
  while (!renew_cv_.wait_for(lock, every, [this] { return slots_done_; })) {
    lock.unlock();
    const auto beat = options_.last_beat ? options_.last_beat() : std::nullopt;
    lock.lock();
    const auto now = now_();
    std::vector<std::pair<Delivery, Clock::time_point>> lapsed;
    auto look = [&](const Delivery& d) {
      auto it = confirmed_.find(d.receipt);
      if (it != confirmed_.end() && !fenced_.count(d.receipt) &&
          lease_lapsed(options_.fence, now, it->second, beat))
        lapsed.emplace_back(d, it->second);
    };
    for (const auto& [slot, d] : in_flight_) look(d);
    for (const auto& [key, d] : staging_) look(d);
    for (const auto& d : prefetched_) look(d);
    lock.unlock();
    auto secs = [](auto d) { return std::chrono::duration<double>(d).count(); };
    for (const auto& [d, confirmed] : lapsed) {
      if (now - confirmed < options_.fence.lease)
        fence(d, fmt::format("no heartbeat of this worker reached the broker for {:g} s "
                             "(--dead-after): the broker may count it as dead",
                             secs(options_.fence.dead_after)));
      else
        fence(d, fmt::format("its lease was last renewed {:.1f} s ago (--lease {:g})",
                             secs(now - confirmed), secs(options_.fence.lease)));
    }
    lock.lock();
  }
}

void Worker::fence(const Delivery& d, const std::string& why) {
  bool running = false, prefetched = false;
  {
    std::lock_guard lock(mu_);
    bool held = false;
    for (const auto& [slot, f] : in_flight_)
      if (f.receipt == d.receipt) held = running = true;
    for (const auto& [key, f] : staging_)
      if (f.receipt == d.receipt) held = true;
    auto it = std::find_if(prefetched_.begin(), prefetched_.end(),
                           [&](const Delivery& f) { return f.receipt == d.receipt; });
    if (it != prefetched_.end()) {
      prefetched_.erase(it);
      held = prefetched = true;
    }
    if (!held || !fenced_.insert(d.receipt).second) return;  // done with meanwhile, or again
    fenced_n_++;
    report_.fenced++;
    if (prefetched) forget_lease_locked(d.receipt);
  }
  log::warn(
      "task given up step={} sample={}: {}; {}, not committed here (the broker gives it to "
      "another worker)",
      plan_.graph().step_of(d.message.instance).name, d.message.lo, why,
      prefetched ? "it had not started"
                 : (running ? "its step is ended" : "its outputs are not staged further"));
  if (running) executor_.end_run(d.message.instance, d.message.lo);
}

bool Worker::is_fenced(const Delivery& d) {
  if (fenced_n_.load() == 0) return false;  // the common case, without the lock
  std::lock_guard lock(mu_);
  return fenced_.count(d.receipt) > 0;
}

Result<void> Worker::drop_fenced(const Delivery& d, const char* when) {
  log::info("task dropped step={} sample={} {}: its lease was lost (fenced)",
            plan_.graph().step_of(d.message.instance).name, d.message.lo, when);
  return ok();
}

void Worker::forget_lease_locked(const std::string& receipt) {
  if (!confirmed_.empty()) confirmed_.erase(receipt);
  if (fenced_n_.load() > 0 && fenced_.erase(receipt) > 0) fenced_n_--;
}

// Nothing is queued, delayed or in flight in the watched queues: no slot of ours holds a task
// (it would be in flight) and none can come, so every idle slot ends now instead of each
// finding it out in turn behind the one reserving (S slots × a blocking read: seconds of an
// allocation held for nothing).
void Worker::note_quiescent() {
  {
    std::lock_guard lock(mu_);
    quiescent_ = true;
  }
  fetch_cv_.notify_all();
  scratch_cv_.notify_all();
}

bool Worker::is_quiescent() {
  std::lock_guard lock(mu_);
  return quiescent_;
}

void Worker::slot_loop(int slot) {
  while (!stop_) {
    if (is_quiescent()) break;
    auto served = active_queues();
    if (served.empty()) break;
    auto queues = takeable_queues();
    if (queues.empty()) {  // every queue left needs scratch, which is down: wait for its retry
      if (options_.exit_when_idle) {
        auto p = broker_.pending(idle_watch(served));
        if (!p) {
          fail(p.error());
          break;
        }
        if (*p == 0) {
          note_quiescent();
          break;
        }
      }
      std::unique_lock lock(mu_);
      scratch_cv_.wait_for(lock, options_.poll, [this] { return stop_.load() || quiescent_; });
      continue;
    }
    auto d = next_delivery(queues);
    if (!d) {
      fail(d.error());
      break;
    }
    if (!*d) {
      if (!options_.exit_when_idle) continue;
      if (is_quiescent()) break;  // another slot found nothing left: so do we
      auto p = broker_.pending(idle_watch(queues));
      if (!p) {
        fail(p.error());
        break;
      }
      if (*p == 0) {  // quiescent: nothing queued, delayed or in flight
        note_quiescent();
        break;
      }
      continue;
    }
    if (options_.on_stop_notices &&
        (*d)->stop_notices != stop_notices_.exchange((*d)->stop_notices))
      options_.on_stop_notices();               // another worker's stop may cover this task
    if (stop_ || !queue_active((*d)->queue)) {  // stopped while reserving: hand it back
      {
        std::lock_guard lock(mu_);
        forget_lease_locked((*d)->receipt);
      }
      (void)broker_.release(**d);
      if (stop_) break;
      continue;
    }
    {
      std::lock_guard lock(mu_);
      in_flight_[slot] = **d;
    }
    auto h = handle(**d);
    {
      std::lock_guard lock(mu_);
      in_flight_.erase(slot);
      // Its lease records go, unless its staging goes on (then they go when that ends). Local
      // runs keep none: nothing to look for.
      if (!confirmed_.empty() || fenced_n_.load() > 0) {
        const bool staging = std::any_of(staging_.begin(), staging_.end(), [&](const auto& s) {
          return s.second.receipt == (*d)->receipt;
        });
        if (!staging) forget_lease_locked((*d)->receipt);
      }
    }
    if (!h) {
      if (h.error().code == ErrorCode::kNoSpace)
        log::error(
            "worker stops taking tasks: {} (the task goes back uncommitted; free space, then "
            "`merlin restart` or start the workers again)",
            h.error().message);
      else
        log::error("worker giving up error=\"{}\"", h.error().message);
      // Stopped before the task goes back, so that no other slot of ours takes it again.
      fail(h.error());
      (void)broker_.release(**d);
    }
  }
}

Result<std::optional<Delivery>> Worker::next_delivery(const std::vector<std::string>& queues) {
  std::size_t n = 0;
  {
    std::unique_lock lock(mu_);
    idle_slots_++;
    fetch_cv_.wait(lock, [this] { return !prefetched_.empty() || !fetching_ || quiescent_; });
    if (!prefetched_.empty()) {
      std::optional<Delivery> d(std::move(prefetched_.front()));
      prefetched_.pop_front();
      idle_slots_--;
      if (options_.take_ahead > 0) ahead_cv_.notify_one();
      return d;
    }
    if (stop_ || quiescent_) {  // draining, or nothing is left: reserve nothing more
      idle_slots_--;
      return std::optional<Delivery>();
    }
    // Only the idle slots (this one and those waiting here) get a message each: none waits
    // behind a busy slot, and no more is held from other workers than this one can start.
    fetching_ = true;
    n = static_cast<std::size_t>(idle_slots_);
  }
  auto got = broker_.reserve_many(queues, n, options_.poll);
  // Within a reply's latency of the broker's own delivery time (fencing's `confirmed`).
  const auto taken = options_.fence.lease.count() > 0 ? now_() : Clock::time_point();
  std::optional<Delivery> mine;
  {
    std::lock_guard lock(mu_);
    fetching_ = false;
    idle_slots_--;
    if (got && options_.fence.lease.count() > 0)  // tracked only where leases lapse
      for (const auto& d : *got) confirmed_[d.receipt] = taken;
    if (got && !got->empty()) {
      mine = std::move(got->front());
      for (std::size_t i = 1; i < got->size(); ++i) prefetched_.push_back(std::move((*got)[i]));
    }
  }
  fetch_cv_.notify_all();
  if (!got) return got.error();
  return mine;
}

bool Worker::wants_ahead_locked() const {
  const double last = last_run_seconds_.load();
  // Refilled once half is gone, so that each take brings several (fewer take scripts, less
  // broker CPU per task than one take per task).
  return last >= 0 && last < kShortTaskSeconds && !fetching_ &&
         prefetched_.size() <= static_cast<std::size_t>(options_.take_ahead) / 2;
}

void Worker::take_ahead_loop() {
  const auto lease = options_.fence.lease.count() > 0;
  bool failing = false;  // said once per run of failures
  std::unique_lock lock(mu_);
  for (;;) {
    // Woken when a slot takes one; the poll interval bounds how late it sees a shorter task
    // or what the broker made ready meanwhile.
    ahead_cv_.wait_for(lock, options_.poll,
                       [this] { return ahead_done_ || stop_ || quiescent_ || wants_ahead_locked(); });
    if (ahead_done_ || stop_ || quiescent_) return;
    if (!wants_ahead_locked()) continue;
    fetching_ = true;
    const std::size_t n = static_cast<std::size_t>(options_.take_ahead) - prefetched_.size();
    lock.unlock();
    auto queues = takeable_queues();
    // Only what is ready: waiting for more is the slots' part (they decide when it is idle).
    auto got = queues.empty() ? Result<std::vector<Delivery>>(std::vector<Delivery>())
                              : broker_.reserve_many(queues, n, std::chrono::milliseconds(0));
    const auto taken = lease ? now_() : Clock::time_point();
    lock.lock();
    fetching_ = false;
    if (got)
      for (auto& d : *got) {
        if (lease) confirmed_[d.receipt] = taken;
        prefetched_.push_back(std::move(d));
      }
    fetch_cv_.notify_all();
    // Not fatal: the slots take for themselves, and stop the worker if it lasts.
    if (!got && !failing)
      log::warn("taking ahead failed error=\"{}\" (the slots take for themselves)",
                got.error().message);
    failing = !got;
    if (!got || got->empty())  // nothing ready: look again after a poll interval
      ahead_cv_.wait_for(lock, options_.poll, [this] { return ahead_done_ || stop_.load(); });
  }
}

Result<void> Worker::publish_all(const std::vector<Routed>& routed) {
  std::map<std::pair<bool, std::string>, std::vector<TaskMessage>> by_queue;
  for (const auto& r : routed) by_queue[{r.first, r.queue}].push_back(r.message);
  for (const auto& [key, msgs] : by_queue) {
    auto p =
        key.first ? broker_.publish_first(key.second, msgs) : broker_.publish(key.second, msgs);
    if (!p) return p;
  }
  return ok();
}

// A poison task: every worker that took it died before finishing it. Recorded as a soft fail
// (so dependents and the study go on) and never run again.
Result<void> Worker::give_up_on(const Delivery& d) {
  const TaskMessage& m = d.message;
  const auto& node = plan_.graph().step_of(m.instance);
  log::error(
      "step given up step={} sample={} deliveries={}: each worker that took it died "
      "before finishing it; recorded as failed, not run again",
      node.name, m.lo, d.deliveries);
  return commit_and_ack(d, Outcome::kSoftFail, 0);
}

// Records the sample's outcome, queues what that makes ready, then acks: dependents are
// published before the ack, so a worker dying in between loses nothing (see redelivery).
// When the follow-ups can be decided before the commit, the broker does all three in one call
// (Broker::finish; one Redis script), holding the ack when the commit completes an instance
// with whole dependents: those are released here (claim_release ...) before the ack.
Result<void> Worker::commit_and_ack(const Delivery& d, Outcome outcome, double seconds,
                                    double value) {
  const TaskMessage& m = d.message;
  if (is_fenced(d)) return drop_fenced(d, "before its commit");
  bool acked = false;
  if (auto before = plan_.follow_ups_before_commit(m.instance, m.lo)) {
    FinishRequest req;
    req.instance = m.instance;
    req.sample = m.lo;
    req.outcome = outcome;
    req.seconds = seconds;
    for (auto& r : *before) {
      auto it = std::find_if(req.follow_ups.begin(), req.follow_ups.end(),
                             [&](const auto& q) { return q.first == r.queue; });
      if (it == req.follow_ups.end())
        req.follow_ups.emplace_back(r.queue, std::vector<TaskMessage>{r.message});
      else
        it->second.push_back(r.message);
    }
    req.hold_ack_at_zero = plan_.releases_when_complete(m.instance);
    auto f = finisher_.finish(d, req);
    if (!f) return f.error();
    if (f->fenced) {
      {
        std::lock_guard lock(mu_);
        report_.fenced++;
      }
      log::warn(
          "late commit refused step={} sample={}: another worker took the task over after its "
          "lease ran out; that worker's run commits it",
          plan_.graph().step_of(m.instance).name, m.lo);
      return ok();
    }
    acked = f->acked;
    if (!acked) {
      auto whole = plan_.after_complete(m.instance, store_);
      if (!whole) return whole.error();
      auto p = publish_all(*whole);
      if (!p) return p;
    }
  } else {
    // A tuned task (docs/tuning.md) commits with its result; the store decides promotions.
    auto c = store_.commit_trial(m.instance, m.lo, outcome, seconds, value);
    if (!c) return c.error();
    if (c->newly_done && c->remaining == 0) {  // a search's summary, before its dependents
      auto w = write_search_summary(m.instance);
      if (!w) return w;
    }
    auto follow = plan_.after_commit(m.instance, m.lo, *c, store_);
    if (!follow) return follow.error();
    auto p = publish_all(*follow);
    if (!p) return p;
  }
  {
    std::lock_guard lock(mu_);
    if (outcome == Outcome::kSuccess) report_.succeeded++;
    if (is_failure(outcome)) report_.failed++;
  }
  if (acked) return ok();
  return broker_.ack(d);
}

// A tuned instance's summary (docs/tuning.md): best.json, best.env and trials.csv in its
// directory, written whole (temp + rename) so a step after the search reads them complete.
Result<void> Worker::write_search_summary(InstanceId instance) {
  const auto& node = plan_.graph().step_of(instance);
  if (!node.tune) return ok();
  auto standings = store_.standings(instance);
  if (!standings) return standings.error();
  const auto& spec = *node.spec->run.tune;
  const auto board = tune::leaderboard(*standings, spec.metric.maximize);
  const std::string best_dir =
      board.empty() ? "" : renderer_.task_dir(instance, node.tune->task(board.front().trial, 0));
  const std::string dir = renderer_.instance_dir(instance);
  auto made = files::make_dirs(dir);
  if (!made) return made;
  for (const auto& [name, text] :
       {std::pair<const char*, std::string>{"best.json",
                                            tune::best_json(spec, *node.tune, board, best_dir)},
        {"best.env", tune::best_env(spec, *node.tune, board, best_dir)},
        {"trials.csv",
         tune::trials_csv(spec, *node.tune, board, tune::pruned_trials(dir, *node.tune, board))}}) {
    auto w = files::write_atomic(dir + "/" + name, text);
    if (!w) return w;
  }
  if (!board.empty())
    log::info("search finished step={} best trial={} value={} dir={}", node.name,
              board.front().trial, board.front().value, best_dir);
  return ok();
}

// Gathers the facts of a delivery, asks decide_delivery, and acts: the broker and store calls
// are those of the decision's branch, in its order.
Result<void> Worker::handle(const Delivery& d) {
  const TaskMessage& m = d.message;
  DeliveryFacts facts;
  facts.leaf = m.is_leaf();
  facts.redelivered = d.redelivered;
  facts.deliveries = d.deliveries;
  facts.max_deliveries = options_.max_deliveries;
  if (facts.leaf) {
    auto runnable = plan_.leaf_runnable(
        m, store_, d.sample_done < 0 ? std::nullopt : std::optional<bool>(d.sample_done == 1));
    if (!runnable) return runnable.error();
    facts.runnable = *runnable;
  }
  switch (decide_delivery(facts)) {
    case DeliveryAction::kSplit: {
      {
        std::lock_guard lock(mu_);
        report_.splits++;
      }
      // Its parts are published, then it is acked. Behind the slot like a commit
      // (WorkerOptions::commit_behind): two round trips no slot needs to wait for.
      auto split = [this, d] {
        auto p = broker_.publish(d.queue, plan_.split(d.message));
        if (!p) return p;
        return broker_.ack(d);
      };
      if (options_.commit_behind && pool_) return behind(d, std::move(split));
      return split();
    }
    case DeliveryAction::kRepublishThenSkip: {
      auto done = store_.is_done(m.instance, m.lo);
      if (!done) return done.error();
      if (*done) {
        // Its first run may have completed a search and died before leaving its summary.
        auto complete = store_.is_complete(m.instance);
        if (!complete) return complete.error();
        if (*complete) {
          auto w = write_search_summary(m.instance);
          if (!w) return w;
        }
        auto again = plan_.after_redelivery(m.instance, m.lo, store_);
        if (!again) return again.error();
        auto p = publish_all(*again);
        if (!p) return p;
      }
      [[fallthrough]];
    }
    case DeliveryAction::kSkip: {
      {
        std::lock_guard lock(mu_);
        report_.skipped++;
      }
      return broker_.ack(d);
    }
    case DeliveryAction::kGiveUp:
      return give_up_on(d);
    case DeliveryAction::kRun:
      break;
  }
  return run_task(d);
}

// Renders, prepares and runs a leaf, then gathers the run's facts and asks decide_outcome.
Result<void> Worker::run_task(const Delivery& d) {
  const TaskMessage& m = d.message;
  const auto& node = plan_.graph().step_of(m.instance);
  // A fan-out step whose file could not be read (docs/fanout.md): its one task fails, with
  // the reason, and the study goes on.
  if (auto samples = renderer_.check_samples(m.instance); !samples) {
    log::error("step failed without running study={} step={} error=\"{}\"",
               plan_.graph().tokens().study_name, node.name, samples.error().message);
    return commit_and_ack(d, Outcome::kSoftFail, 0);
  }
  RenderedTask task = renderer_.render(m.instance, m.lo, m.kind);
  task.attempt = m.attempt;
  if (m.attempt > 0)
    task.again = m.kind == TaskKind::kRestart ? "restart" : "retry";
  else if (d.redelivered)
    task.again = "redelivered";
  const bool scratch = !task.scratch_dir.empty();
  // Its step succeeded here before, and its worker stopped before the staging ended: the
  // outputs are staged from the scratch dir, not made again (docs/staging.md).
  if (scratch) {
    if (auto done = stager_->success_record(task)) {
      log::info(
          "re-staging step={} sample={}: its step succeeded in scratch={} before its worker "
          "stopped; its outputs are staged now, the step is not run again",
          node.name, m.lo, task.scratch_dir);
      {
        std::lock_guard lock(mu_);
        report_.restaged++;
      }
      return stage_then_commit(d, std::move(task), done->seconds, done->write_finished);
    }
  }
  if (scratch) {
    auto p = stager_->prepare(task);
    if (!p && scratch_fault_is_the_nodes(p.error().code))
      return scratch_unusable(d, node.name, p.error());
    if (!p) {  // the task's own (a stage_in file missing): it fails, the study goes on
      log::error("scratch not usable study={} step={} sample={} error=\"{}\"",
                 plan_.graph().tokens().study_name, node.name, m.lo, p.error().message);
      {
        std::lock_guard lock(mu_);
        report_.staging_failed++;
      }
      return commit_and_ack(d, Outcome::kSoftFail, 0);
    }
    bool back;
    {
      std::lock_guard lock(mu_);
      back = scratch_health_.succeeded();
    }
    if (back) log::info("scratch usable again step={}: taking tasks of every queue", node.name);
  }
  if (is_fenced(d)) return drop_fenced(d, "before its step started");
  if (options_.on_start) options_.on_start(m.instance, m.lo);
  running_[m.instance.v]++;
  if (watch_) watch_->watch(task);
  auto r = executor_.run(task);
  running_[m.instance.v]--;
  if (r) last_run_seconds_ = r->seconds;
  if (is_fenced(d)) {  // ended by fence(), or it ended by itself meanwhile: dropped alike
    if (watch_) (void)watch_->done(task);
    log::info("step {} step={} sample={} after its lease was lost", how_it_ended(r), node.name,
              m.lo);
    return drop_fenced(d, "after its run");
  }
  // Pruned (docs/tuning.md): ended by the watch, unless it finished its rung meanwhile.
  if (auto pruned = watch_ ? watch_->done(task) : std::nullopt;
      pruned && r && !abort_ && (r->exit_code != 0 || r->signal != 0))
    return commit_pruned(d, node, task, r->seconds, *pruned);

  RunFacts facts;
  facts.aborted = abort_;
  if (r) {
    facts.exit_code = r->exit_code;
    facts.timed_out = r->timed_out;
  } else {
    facts.run_error = r.error().code;
  }
  facts.has_restart = task.has_restart;
  facts.attempt = m.attempt;
  facts.max_retries = node.spec->run.max_retries;
  facts.scratch = scratch;
  return act_on(d, node, task, r, decide_outcome(facts));
}

// A trial ended by the watch: recorded in its directory (MERLIN_PRUNED) and committed without
// a result, as done (MERLIN_SKIPPED): never retried, never promoted.
Result<void> Worker::commit_pruned(const Delivery& d, const StepNode& node,
                                   const RenderedTask& task, double seconds,
                                   const tune::PruneVerdict& v) {
  const auto& shape = *node.tune;
  const std::uint32_t trial = shape.trial_of(d.message.lo), rung = shape.rung_of(d.message.lo);
  auto number = [](double x) { return std::isfinite(x) ? fmt::format("{}", x) : "null"; };
  const std::string record = fmt::format(
      "{{\"trial\": {}, \"rung\": {}, \"budget\": {}, \"value\": {}, \"cut\": {}, "
      "\"compared\": {}, \"keep\": {}}}\n",
      trial, rung, number(v.budget), number(v.value), number(v.cut), v.compared, v.keep);
  if (auto w = files::write(task.dir + "/" + tune::kPrunedMarker, record); !w)
    log::warn("cannot record the pruning step={} trial={}: {}", node.name, trial,
              w.error().message);
  log::info("trial pruned step={} trial={} rung={} at budget={} seconds={:.1f}", node.name, trial,
            rung, v.budget, seconds);
  {
    std::lock_guard lock(mu_);
    report_.executed++;
    report_.pruned++;
  }
  return commit_and_ack(d, Outcome::kSkipped, seconds);
}

// Carries out decide_outcome's answer for a run that returned `r`, in the answer's order.
Result<void> Worker::act_on(const Delivery& d, const StepNode& node, RenderedTask& task,
                            const Result<ExecResult>& r, const TaskOutcome& o) {
  const TaskMessage& m = d.message;
  switch (o.next) {
    case TaskOutcome::Next::kRelease:  // ended by us: not the step's verdict
      log::warn(
          "step {} after the run was interrupted step={} sample={}: not committed, it runs "
          "again on restart",
          how_it_ended(r), node.name, m.lo);
      return broker_.release(d);
    case TaskOutcome::Next::kStopWorker:
      // Nothing is committed; the slot hands the task back and the worker stops (slot_loop).
      return r.error();
    case TaskOutcome::Next::kRequeue:
    case TaskOutcome::Next::kStageThenCommit:
    case TaskOutcome::Next::kCommit:
      break;
  }
  if (o.could_not_run)
    log::error("cannot run step={} sample={} error=\"{}\"", node.name, m.lo, r.error().message);
  const double seconds = r ? r->seconds : 0;
  const StepDecision& dec = o.step;
  {
    std::lock_guard lock(mu_);
    report_.executed++;
  }

  if (o.next == TaskOutcome::Next::kRequeue) {
    log::warn("step {} step={} sample={} attempt={} code={}", dec.what, node.name, m.lo,
              m.attempt + 1, o.exit_code);
    TaskMessage next = m;
    next.attempt++;
    next.kind = dec.same_kind ? m.kind : dec.next_kind;
    auto delay = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(node.spec->run.retry_delay));
    auto p = broker_.publish_at(d.queue, next, now_() + delay);
    if (!p) return p;
    {
      std::lock_guard lock(mu_);
      report_.requeued++;
    }
    return broker_.ack(d);
  }
  if (o.next == TaskOutcome::Next::kStageThenCommit) {
    // Recorded first, so that a worker dying during the staging does not cost the step again.
    if (auto w = stager_->record_success(task, seconds, dec.write_finished); !w)
      log::warn("step={} sample={} {} (a restart would run the step again)", node.name, m.lo,
                w.error().message);
    return stage_then_commit(d, std::move(task), seconds, dec.write_finished);
  }

  if (o.keep_scratch)
    log::warn("scratch left for inspection step={} sample={} scratch={}", node.name, m.lo,
              task.scratch_dir);
  if (o.mark_finished) {
    auto f = executor_.mark_finished(task);
    if (!f) return f;
  } else {
    auto level = o.failure_is_error ? log::Level::kError : log::Level::kWarn;
    if (log::level() <= level)
      log::write(level, fmt::format("step {} step={} sample={} code={} dir={}", dec.what, node.name,
                                    m.lo, o.exit_code, task.dir));
  }
  // Stops take effect before the commit publishes dependents, so no other slot can start one
  // (slots re-check after every reserve).
  if (dec.stop_queue || dec.stop_all) {
    if (dec.stop_queue) {
      stop_queue(d.queue);
      log::error("hard fail: stopping workers of queue={} step={}", d.queue, node.name);
    }
    if (dec.stop_all) {
      {
        std::lock_guard lock(mu_);
        report_.stopped_by_step = true;
      }
      stop_ = true;
      log::warn("MERLIN_STOP_WORKERS from step={} sample={}: stopping", node.name, m.lo);
    }
    if (options_.on_stop) options_.on_stop(d.queue, node.name, dec.stop_all);
  }
  double value = std::numeric_limits<double>::quiet_NaN();
  if (!task.metric_path.empty() && dec.outcome == Outcome::kSuccess) {
    std::string why;
    value = read_trial_result(task.metric_path, task.metric_key, why);
    if (std::isnan(value) && !why.empty())
      log::warn("trial without a result step={} task={}: {}", node.name, m.lo, why);
  }
  if (options_.commit_behind && pool_ && !node.tune)
    return behind(d, [this, d, outcome = dec.outcome, seconds] {
      return commit_and_ack(d, outcome, seconds);
    });
  return commit_and_ack(d, dec.outcome, seconds, value);
}

}  // namespace merlin
