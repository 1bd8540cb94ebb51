#pragma once
/// The worker runtime: N slots, each looping reserve → (split | run → decide → commit →
/// queue dependents) → ack. The same code runs `merlin run --local` (in-process broker) and
/// distributed workers. Handlers are idempotent under redelivery: a leaf whose sample is
/// already committed is skipped, commits are set-if-unset, follow-ups are published before ack.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "merlin/core/broker/broker.h"
#include "merlin/core/broker/state_store.h"
#include "merlin/core/plan/plan.h"
#include "merlin/core/study/task_renderer.h"
#include "workers/scratch_health.h"
#include "workers/stager.h"
#include "workers/staging_pool.h"
#include "workers/finish_batcher.h"
#include "workers/lease_fence.h"
#include "workers/step_executor.h"
#include "workers/task_decisions.h"
#include "workers/trial_watch.h"

namespace merlin {

/// How many deliveries of a task whose workers keep dying on it before it is given up
/// (WorkerOptions::max_deliveries, `run-workers --max-deliveries`).
inline constexpr std::uint32_t kDefaultMaxDeliveries = 10;

/// How long a distributed worker waits before it tries its node's scratch again after a task's
/// scratch could not be prepared (full, read-only, refused); doubled after each failed try up
/// to kDefaultScratchRetryMax (WorkerOptions::scratch_retry).
inline constexpr std::chrono::milliseconds kDefaultScratchRetry{5'000};
inline constexpr std::chrono::milliseconds kDefaultScratchRetryMax{300'000};

struct WorkerOptions {
  std::vector<std::string> queues;  ///< queues served; empty = every step's queue
  /// Queues whose emptiness means "idle" (exit_when_idle); empty = the served queues. A
  /// distributed worker names every queue of the study: work queued for another worker's
  /// queue may still lead to work on its own.
  std::vector<std::string> idle_queues;
  int slots = 1;  ///< tasks run concurrently
  std::chrono::milliseconds poll{100};
  bool exit_when_idle = true;  ///< stop once nothing is pending on the served queues
  /// How often the lease of every running task is renewed (Broker::extend_lease), so a task
  /// longer than the broker's lease is not taken over by another worker. Keep it well under
  /// the lease (a third). 0 = never.
  std::chrono::milliseconds lease_renewal = lease_renewal_for(kDefaultLease);
  /// Fencing (docs/distributed.md, "Fencing"): the broker's terms (`--lease`, `--dead-after`).
  /// A task whose lease may have run out by them (lease_lapsed: no renewal answered for a
  /// whole lease, or no heartbeat recorded for dead_after) may be another worker's already:
  /// its step is ended as a pruned trial's is (StepExecutor::end_run) and its delivery
  /// dropped, neither committed, acked nor released. So is one whose renewal the broker
  /// answers "not yours" (Broker::extend_lease). Default: never (local runs).
  LeaseTerms fence;
  /// The send time of the worker's last heartbeat the broker recorded, for fence.dead_after;
  /// none while no beat was recorded (the broker counts no worker dead without one); null:
  /// no beats are sent. Called from the fence thread.
  std::function<std::optional<Clock::time_point>()> last_beat;
  /// A task delivered more often than this (Delivery::deliveries: its workers died on it each
  /// time, e.g. the step kills the node or the worker) is not run again: it is recorded as a
  /// soft fail so that the study goes on. 0 = no cap.
  std::uint32_t max_deliveries = kDefaultMaxDeliveries;
  /// Told when a step's return code stops a queue (MERLIN_HARD_FAIL: `all` false) or the
  /// worker (MERLIN_STOP_WORKERS: `all` true), after this worker has applied it, so that a
  /// distributed fleet can tell its other processes. Called from a slot thread.
  std::function<void(const std::string& queue, const std::string& step, bool all)> on_stop;
  /// Called (from a slot thread, before the task starts) when a delivery carries a new
  /// Delivery::stop_notices count: read the stops and apply them (stop_queue, request_stop).
  std::function<void()> on_stop_notices;
  /// Called from a slot thread just before a task's step starts (for the task journal's
  /// "started" record, which `merlin detailed-status` shows as RUNNING).
  std::function<void(InstanceId, SampleId)> on_start;
  /// Scratch and staging of steps with `scratch:` (docs/staging.md); not owned. Null = a
  /// FileStager of the worker's own.
  Stager* stager = nullptr;
  /// When a task's scratch on this node is unusable for a reason of the node (full: kNoSpace;
  /// read-only, no permission, or refused by the safety checks: kUnavailable; see
  /// Stager::prepare), the task goes back to the broker uncommitted (Broker::release: not a
  /// failure, and it does not count as a delivery). Then, with 0 (a local run: no other node
  /// could take it), the worker stops with that error; else it stops taking tasks of the
  /// queues that hold a step with `scratch:`, logs it, and tries again (the next such task is
  /// the probe) after this long, doubling after each failed try up to scratch_retry_max.
  std::chrono::milliseconds scratch_retry{0};
  std::chrono::milliseconds scratch_retry_max = kDefaultScratchRetryMax;
  /// Threads staging outputs while the slots go on; 0 = min(slots, 4). The queue in front of
  /// them holds `slots` tasks; a slot finding it full waits (backpressure).
  int stager_threads = 0;
  /// The commit (Broker::finish, the ack, the dependents it releases) of a task that ran in
  /// its workspace, and a split's publish and ack, go to the stager threads as a staged task's
  /// commit does, and the slot takes its next task without waiting for the broker's answer:
  /// one round trip less on each slot's path per task (docs/scaling.md, "Nodes apart"). The
  /// task's lease is renewed and fenced until the job is done, and run() returns only after
  /// every such job. Tuned steps commit in place (their promotions decide what runs next).
  /// Distributed workers set it; a local run, which has no round trip to save, commits in
  /// place.
  bool commit_behind = false;
  /// While the worker's tasks are short (its last one ran under kShortTaskSeconds), a thread
  /// keeps up to this many deliveries reserved ahead of the slots, taken when ready (no
  /// waiting); next_delivery hands them out, so a slot that ends a task starts its next one
  /// without a round trip to the broker. Long tasks take nothing ahead: a round trip is
  /// nothing beside them, and a task held ahead would wait a whole task for a slot while
  /// another worker idles. Held deliveries are renewed, fenced and given back at the end like
  /// any prefetched one. 0 = none (local runs, which have no round trip to save).
  int take_ahead = 0;
};

/// Below this many seconds a task counts as short (WorkerOptions::take_ahead).
inline constexpr double kShortTaskSeconds = 1.0;

/// What a worker did, for the closing summary.
struct WorkerReport {
  std::uint64_t executed = 0, succeeded = 0, failed = 0, requeued = 0, skipped = 0, splits = 0;
  bool stopped_by_step = false;          ///< MERLIN_STOP_WORKERS was returned
  std::set<std::string> stopped_queues;  ///< by MERLIN_HARD_FAIL
  std::uint64_t staged = 0;              ///< tasks whose outputs were staged and committed
  std::uint64_t staging_failed = 0;      ///< tasks failed by scratch or staging errors
  std::uint64_t staged_bytes = 0;
  std::uint64_t restaged = 0;  ///< staged from a previous run's scratch, the step not run again
  double staging_busy_seconds = 0;  ///< the stager threads' time in jobs, summed
  std::uint64_t pruned = 0;         ///< tuned trials ended early (docs/tuning.md, "Pruning")
  /// Tasks given up because their lease ran out or another worker took them over (fencing):
  /// not committed here; the broker gives them to another worker.
  std::uint64_t fenced = 0;
};

class Worker {
 public:
  using Now = std::function<Clock::time_point()>;
  Worker(
      Broker& broker, StateStore& store, const Plan& plan, const TaskRenderer& renderer,
      StepExecutor& executor, WorkerOptions options, Now now = [] { return Clock::now(); });

  /// Runs the slots until idle (exit_when_idle), stopped, or an infrastructure error (returned).
  /// When the system cannot create all `slots` threads, returns kRuntime before any task is
  /// reserved (the threads made so far exit unused).
  Result<WorkerReport> run();
  /// Drain: slots finish their current task and exit; reserved-but-unstarted tasks go back.
  void request_stop() { stop_ = true; }
  /// Stops serving `queue` (another process's MERLIN_HARD_FAIL): reserved tasks of it go back.
  void stop_queue(const std::string& queue);
  /// Stop now: running steps are terminated and their tasks handed back uncommitted (a
  /// restart runs them again).
  void abort();
  /// Tasks running now, per instance (for live status).
  std::vector<std::uint32_t> running() const;

 private:
  /// Blocks until run() has created every thread; false when it could not (leave at once).
  bool pass_start_gate();
  void slot_loop(int slot);
  /// The slot's next delivery: the first one waiting in the prefetch buffer, or, while no
  /// other slot is reserving, up to one message per idle slot in one Broker::reserve_many
  /// (the others go to the buffer, where idle slots take them). Empty after `poll` with none.
  Result<std::optional<Delivery>> next_delivery(const std::vector<std::string>& queues);
  void renewal_loop();
  /// Every fence_check_interval: fences the held deliveries whose lease lapsed (lease_lapsed).
  /// Its own thread: the renewal thread may hang in a broker call while the broker is cut off.
  void fence_loop();
  /// Gives `d` up, if this worker still holds it and has not yet: a prefetched delivery is
  /// dropped, a running step ended (StepExecutor::end_run); the slot drops it when the run
  /// returns, and a commit checks is_fenced first.
  void fence(const Delivery& d, const std::string& why);
  bool is_fenced(const Delivery& d);
  /// A fenced delivery's end, in the log and the report; no broker call.
  Result<void> drop_fenced(const Delivery& d, const char* when);
  /// Forgets the lease records of a delivery the worker no longer holds (guarded by mu_).
  void forget_lease_locked(const std::string& receipt);
  /// One delivery: gathers its facts, decides (decide_delivery) and acts on the decision.
  Result<void> handle(const Delivery& d);
  /// A leaf decided kRun: renders, prepares and runs it, then acts on decide_outcome.
  Result<void> run_task(const Delivery& d);
  /// After the run of `task`, which returned `r`: does what `o` says (release, return the
  /// error, requeue, stage, or mark, stop and commit) and acks.
  Result<void> act_on(const Delivery& d, const StepNode& node, RenderedTask& task,
                      const Result<ExecResult>& r, const TaskOutcome& o);
  Result<void> give_up_on(const Delivery& d);
  /// A trial the watch ended (pruned): its record, then a resultless commit.
  Result<void> commit_pruned(const Delivery& d, const StepNode& node, const RenderedTask& task,
                             double seconds, const tune::PruneVerdict& verdict);
  /// Writes a finished search's best.json, best.env and trials.csv (no-op for other steps).
  Result<void> write_search_summary(InstanceId instance);
  /// `value`: a tuned task's result (NaN: none, and for every other task).
  Result<void> commit_and_ack(const Delivery& d, Outcome outcome, double seconds,
                              double value = std::numeric_limits<double>::quiet_NaN());
  /// `job` (a commit and ack, a split's publish and ack) for `d` on the stager threads
  /// (WorkerOptions::commit_behind), blocking while their queue is full; the delivery's lease
  /// is renewed until it is done.
  Result<void> behind(const Delivery& d, std::function<Result<void>()> job);
  /// The end of a job of the stager threads for `d` (its key in staging_): its lease records
  /// go; a failed job hands the task back and stops the worker.
  void end_behind(std::uint64_t key, const Delivery& d, const Result<void>& r);
  /// Hands a succeeded scratch task to the stager threads (blocking while their queue is
  /// full); they stage its outputs, then commit and ack (finish_staging). The delivery's lease
  /// is renewed until then.
  Result<void> stage_then_commit(const Delivery& d, RenderedTask task, double seconds,
                                 bool write_finished);
  void finish_staging(std::uint64_t key, const Delivery& d, const RenderedTask& task,
                      double seconds, bool write_finished);
  Result<void> staged_commit(const Delivery& d, const RenderedTask& task, double seconds,
                             bool write_finished);
  /// A task's scratch could not be prepared for a reason of the node: hands the task back and
  /// stops the worker (scratch_retry 0) or pauses the scratch queues (ScratchHealth).
  Result<void> scratch_unusable(const Delivery& d, const std::string& step, const Error& e);
  /// The served queues less those paused while scratch is down.
  std::vector<std::string> takeable_queues();
  /// The take-ahead thread (WorkerOptions::take_ahead).
  void take_ahead_loop();
  bool wants_ahead_locked() const;
  Result<void> publish_all(const std::vector<Routed>& routed);
  std::vector<std::string> active_queues();
  std::vector<std::string> idle_watch(const std::vector<std::string>& served);
  bool queue_active(const std::string& queue);
  void fail(const Error& e);
  /// A slot found the watched queues quiescent (exit_when_idle): every idle slot ends.
  void note_quiescent();
  bool is_quiescent();

  Broker& broker_;
  StateStore& store_;
  const Plan& plan_;
  const TaskRenderer& renderer_;
  StepExecutor& executor_;
  WorkerOptions options_;
  Now now_;
  FinishBatcher finisher_;  ///< the slots' Broker::finish calls, grouped when they coincide
  std::atomic<bool> stop_{false};
  std::atomic<bool> abort_{false};
  std::atomic<std::uint64_t> stop_notices_{0};  ///< the count last looked at
  std::unique_ptr<std::atomic<std::uint32_t>[]> running_;
  std::mutex mu_;  ///< guards report_, queues_, error_
  WorkerReport report_;
  std::vector<std::string> queues_;
  std::set<std::string> scratch_queues_;  ///< queues holding a step with `scratch:`
  ScratchHealth scratch_health_;          ///< guarded by mu_
  std::condition_variable scratch_cv_;    ///< a slot waiting while every queue is paused
  std::optional<Error> error_;
  std::map<int, Delivery> in_flight_;  ///< by slot, guarded by mu_ (for lease renewal)
  /// By receipt: when each held delivery was last known to be this worker's (lease_lapsed's
  /// `confirmed`); guarded by mu_.
  std::map<std::string, Clock::time_point> confirmed_;
  std::set<std::string> fenced_;  ///< receipts given up (fence); guarded by mu_
  std::atomic<std::size_t> fenced_n_{0};  ///< fenced_.size(), read without the lock
  /// Deliveries waiting for or in staging, or for a commit behind the slot, by job key;
  /// guarded by mu_ (for lease renewal).
  std::map<std::uint64_t, Delivery> staging_;
  std::uint64_t next_staging_ = 0;  ///< guarded by mu_
  std::unique_ptr<Stager> own_stager_;
  Stager* stager_ = nullptr;
  /// Made by run() when a step has scratch or commits go behind (WorkerOptions::commit_behind).
  std::unique_ptr<StagingPool> pool_;
  std::unique_ptr<TrialWatch> watch_;  ///< made by run() when a tuned step prunes
  /// Reserved for slots that were idle when they came (next_delivery), in take order;
  /// guarded by mu_, renewed with the running ones, released if left when run() ends.
  std::deque<Delivery> prefetched_;
  int idle_slots_ = 0;     ///< slots in next_delivery; guarded by mu_
  bool fetching_ = false;  ///< a slot or the take-ahead thread is in reserve_many; guarded by mu_
  std::condition_variable fetch_cv_;
  /// Wakes the take-ahead thread: a slot took a delivery from prefetched_, or run() ends it.
  std::condition_variable ahead_cv_;
  bool ahead_done_ = false;  ///< guarded by mu_
  /// How long the last task's step ran here (seconds); negative: none ran yet.
  std::atomic<double> last_run_seconds_{-1};
  std::condition_variable renew_cv_;
  bool slots_done_ = false;  ///< guarded by mu_
  bool quiescent_ = false;   ///< note_quiescent was called; guarded by mu_
  enum class StartState { kWaiting, kGo, kCancelled };
  StartState start_state_ = StartState::kWaiting;  ///< guarded by mu_
  std::condition_variable start_cv_;
};

}  // namespace merlin
