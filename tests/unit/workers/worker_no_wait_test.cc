// A distributed worker does not wait for the broker between tasks:
//  - commits behind the slot (WorkerOptions::commit_behind): a slot starts its next task while
//    the broker has not yet answered the last one's commit; the held commit's lease is renewed;
//    run() returns only once every commit is made; a commit that fails stops the worker and
//    hands its task back, as one made in place does;
//  - taking ahead (WorkerOptions::take_ahead): while tasks are short, deliveries are reserved
//    ahead of the slots while they run, up to the limit, and every sample still runs once;
//    after a long task nothing is taken ahead; a stop gives back what was taken ahead.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "adapters/broker/local/local_broker.h"
#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/plan/plan.h"
#include "tests/fakes/fake_executor.h"
#include "tests/fakes/one_step_study.h"
#include "tests/fakes/test_study.h"
#include "workers/worker.h"

namespace merlin {
namespace {
using std::chrono::milliseconds;
using testing::FakeExecutor;
using testing::kOneSampledStep;
using testing::make_study;

constexpr auto kBound = std::chrono::seconds(30);

// The in-process broker whose finish of one sample waits until released (a slow answer), or
// fails; it counts lease renewals per sample and what is released.
class SlowFinishBroker : public LocalBroker {
 public:
  Result<FinishResult> finish(const Delivery& d, const FinishRequest& r,
                              StateStore& store) override {
    {
      std::unique_lock lock(mu_);
      if (d.message.lo == held_sample_) {
        finishing_ = true;
        cv_.notify_all();
        cv_.wait_for(lock, kBound, [this] { return let_go_; });
      }
      if (d.message.lo == failing_sample_) return Error::runtime("the broker went away");
    }
    return LocalBroker::finish(d, r, store);
  }
  Result<bool> extend_lease(const Delivery& d) override {
    {
      std::lock_guard lock(mu_);
      renewed_.insert(d.message.lo);
      cv_.notify_all();
    }
    return LocalBroker::extend_lease(d);
  }
  Result<void> release(const Delivery& d) override {
    {
      std::lock_guard lock(mu_);
      released_.insert(d.message.lo);
    }
    return LocalBroker::release(d);
  }

  void hold(SampleId s) { held_sample_ = s; }
  void fail(SampleId s) { failing_sample_ = s; }
  bool wait_finishing() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kBound, [this] { return finishing_; });
  }
  bool wait_renewed(SampleId s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kBound, [&] { return renewed_.count(s) > 0; });
  }
  void let_go() {
    std::lock_guard lock(mu_);
    let_go_ = true;
    cv_.notify_all();
  }
  bool released(SampleId s) {
    std::lock_guard lock(mu_);
    return released_.count(s) > 0;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  SampleId held_sample_ = ~SampleId{0}, failing_sample_ = ~SampleId{0};
  bool finishing_ = false, let_go_ = false;
  std::set<SampleId> renewed_, released_;
};

// The fake executor, whose run of one sample waits until released, and which reports each
// run as having taken `seconds`.
class GateExecutor : public FakeExecutor {
 public:
  Result<ExecResult> run(const RenderedTask& task) override {
    auto r = FakeExecutor::run(task);
    const auto sample = identify(task).sample;
    std::unique_lock lock(mu_);
    if (sample == gated_) {
      in_gate_ = true;
      cv_.notify_all();
      cv_.wait_for(lock, kBound, [this] { return open_; });
    }
    if (r) r->seconds = seconds_;
    return r;
  }
  void gate(SampleId s) { gated_ = s; }
  void report_seconds(double s) { seconds_ = s; }
  bool wait_in_gate() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kBound, [this] { return in_gate_; });
  }
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  SampleId gated_ = ~SampleId{0};
  double seconds_ = 0.01;
  bool in_gate_ = false, open_ = false;
};

// A worker of the one-step study on the in-process broker `B`, its tasks run by `E`.
template <typename B, typename E>
struct Harness {
  explicit Harness(std::uint64_t samples) : study(make_study(kOneSampledStep, samples)) {
    if (!study) return;
    plan = std::make_unique<Plan>(*study->graph);
    store = std::make_unique<LocalStateStore>(study->counts());
    auto ready = plan->ready_at_start(*store);
    EXPECT_TRUE(ready.ok());
    if (ready.ok()) {
      for (const auto& r : *ready) EXPECT_TRUE(broker.publish(r.queue, {r.message}).ok());
    }
  }
  /// Runs a worker of `slots` slots with `wanted`'s commit_behind, take_ahead and exit_when_idle.
  std::future<Result<WorkerReport>> start(int slots, const WorkerOptions& wanted) {
    WorkerOptions o;
    o.slots = slots;
    o.poll = milliseconds(5);
    o.lease_renewal = milliseconds(10);
    o.commit_behind = wanted.commit_behind;
    o.take_ahead = wanted.take_ahead;
    o.exit_when_idle = wanted.exit_when_idle;
    worker = std::make_unique<Worker>(broker, *store, *plan, *study->renderer, executor, o);
    return std::async(std::launch::async, [this] { return worker->run(); });
  }
  bool done(SampleId s) {
    auto d = store->is_done(study->instance("A"), s);
    return d.ok() && *d;
  }
  // Waits until the broker holds at least `n` reserved deliveries (at most kBound).
  bool wait_reserved(std::uint64_t n) {
    auto deadline = Clock::now() + kBound;
    while (Clock::now() < deadline) {
      if (broker.reserved() >= n) return true;
      std::this_thread::sleep_for(milliseconds(2));
    }
    return false;
  }
  std::unique_ptr<testing::TestStudy> study;
  std::unique_ptr<Plan> plan;
  std::unique_ptr<LocalStateStore> store;
  B broker;
  E executor;
  std::unique_ptr<Worker> worker;
};

WorkerOptions behind(bool on) {
  WorkerOptions o;
  o.commit_behind = on;
  return o;
}
WorkerOptions ahead(int n, bool exit_when_idle = true) {
  WorkerOptions o;
  o.take_ahead = n;
  o.exit_when_idle = exit_when_idle;
  return o;
}
using CommitHarness = Harness<SlowFinishBroker, FakeExecutor>;
using AheadHarness = Harness<LocalBroker, GateExecutor>;

// One slot, three samples, the first one's commit held by the broker: the slot runs the other
// two meanwhile, the held task's lease is renewed, and run() waits for the held commit.
TEST(WorkerCommitBehind, TheSlotRunsItsNextTasksWhileACommitWaitsForTheBroker) {
  CommitHarness h(3);
  ASSERT_TRUE(h.study);
  h.broker.hold(0);
  auto run = h.start(1, behind(true));
  ASSERT_TRUE(h.broker.wait_finishing());
  auto deadline = Clock::now() + kBound;
  while (Clock::now() < deadline && h.executor.calls().size() < 3)
    std::this_thread::sleep_for(milliseconds(2));
  EXPECT_EQ(h.executor.calls().size(), 3u) << "the slot waited for the held commit";
  EXPECT_FALSE(h.done(0));
  EXPECT_TRUE(h.broker.wait_renewed(0)) << "a held commit's lease must be renewed";
  EXPECT_NE(run.wait_for(milliseconds(50)), std::future_status::ready)
      << "run() returned before every commit was made";
  h.broker.let_go();
  ASSERT_EQ(run.wait_for(kBound), std::future_status::ready);
  auto report = run.get();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(h.done(0));
  EXPECT_EQ(report->succeeded, 3u);
  for (SampleId s = 0; s < 3; ++s) EXPECT_EQ(h.executor.calls_of("A", s).size(), 1u) << s;
  EXPECT_EQ(h.broker.reserved(), 0u);
}

// In place (the default), the same held commit holds the slot: nothing else runs meanwhile.
TEST(WorkerCommitBehind, InPlaceTheSlotWaitsForItsCommit) {
  CommitHarness h(3);
  ASSERT_TRUE(h.study);
  h.broker.hold(0);
  auto run = h.start(1, behind(false));
  ASSERT_TRUE(h.broker.wait_finishing());
  std::this_thread::sleep_for(milliseconds(100));  // a window for a wrong second run to show
  EXPECT_EQ(h.executor.calls().size(), 1u);
  h.broker.let_go();
  ASSERT_EQ(run.wait_for(kBound), std::future_status::ready);
  auto report = run.get();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->succeeded, 3u);
}

// A commit behind the slot that fails: the worker stops with that error and hands the task
// back uncommitted, as when the slot commits in place.
TEST(WorkerCommitBehind, AFailedCommitStopsTheWorkerAndHandsTheTaskBack) {
  CommitHarness h(4);
  ASSERT_TRUE(h.study);
  h.broker.fail(1);
  auto run = h.start(1, behind(true));
  ASSERT_EQ(run.wait_for(kBound), std::future_status::ready);
  auto report = run.get();
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.error().message.find("the broker went away"), std::string::npos)
      << report.error().message;
  EXPECT_FALSE(h.done(1));
  EXPECT_TRUE(h.broker.released(1));
}

// Short tasks, one slot, two ahead (refilled when one is left): while the slot's third task
// is held, three deliveries are reserved (the running one and two ahead), never more; all 20
// samples run once.
TEST(WorkerTakeAhead, ShortTasksKeepDeliveriesReservedAheadOfTheSlot) {
  AheadHarness h(20);
  ASSERT_TRUE(h.study);
  h.executor.gate(2);
  auto run = h.start(1, ahead(2));
  ASSERT_TRUE(h.executor.wait_in_gate());
  EXPECT_TRUE(h.wait_reserved(3)) << "reserved now: " << h.broker.reserved();
  EXPECT_EQ(h.broker.reserved(), 3u) << "more taken ahead than the limit";
  h.executor.open();
  ASSERT_EQ(run.wait_for(kBound), std::future_status::ready);
  auto report = run.get();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->succeeded, 20u);
  for (SampleId s = 0; s < 20; ++s) EXPECT_EQ(h.executor.calls_of("A", s).size(), 1u) << s;
  EXPECT_EQ(h.broker.reserved(), 0u);
}

// Long tasks: nothing is taken ahead while the slot runs.
TEST(WorkerTakeAhead, LongTasksTakeNothingAhead) {
  AheadHarness h(6);
  ASSERT_TRUE(h.study);
  h.executor.report_seconds(kShortTaskSeconds * 2);
  h.executor.gate(2);
  auto run = h.start(1, ahead(2));
  ASSERT_TRUE(h.executor.wait_in_gate());
  // The take-ahead thread looks every poll interval (5 ms): forty looks' time to err.
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(h.broker.reserved(), 1u) << "taken ahead of a long task";
  h.executor.open();
  ASSERT_EQ(run.wait_for(kBound), std::future_status::ready);
  auto report = run.get();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->succeeded, 6u);
}

// A stop while deliveries are held ahead: they are given back, not run.
TEST(WorkerTakeAhead, AStopGivesBackWhatWasTakenAhead) {
  AheadHarness h(10);
  ASSERT_TRUE(h.study);
  h.executor.gate(2);
  auto run = h.start(1, ahead(3, false));
  ASSERT_TRUE(h.executor.wait_in_gate());
  EXPECT_TRUE(h.wait_reserved(2)) << "nothing taken ahead while the slot runs";
  h.worker->request_stop();
  h.executor.open();
  ASSERT_EQ(run.wait_for(kBound), std::future_status::ready);
  auto report = run.get();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(h.executor.calls().size(), 3u) << "ran what was taken ahead after the stop";
  EXPECT_EQ(h.broker.reserved(), 0u) << "what was taken ahead must go back";
  EXPECT_EQ(report->succeeded, 3u);
}

}  // namespace
}  // namespace merlin
