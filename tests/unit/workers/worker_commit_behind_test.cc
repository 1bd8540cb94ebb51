// Commits behind the slot (WorkerOptions::commit_behind): a slot starts its next task while
// the broker has not yet answered the last one's commit; the held commit's lease is renewed;
// run() returns only once every commit is made; a commit that fails stops the worker and hands
// its task back, as one made in place does.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>

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
  std::future<Result<WorkerReport>> start(int slots, bool behind) {
    WorkerOptions o;
    o.slots = slots;
    o.poll = milliseconds(5);
    o.lease_renewal = milliseconds(10);
    o.commit_behind = behind;
    worker = std::make_unique<Worker>(broker, *store, *plan, *study->renderer, executor, o);
    return std::async(std::launch::async, [this] { return worker->run(); });
  }
  bool done(SampleId s) {
    auto d = store->is_done(study->instance("A"), s);
    return d.ok() && *d;
  }
  std::unique_ptr<testing::TestStudy> study;
  std::unique_ptr<Plan> plan;
  std::unique_ptr<LocalStateStore> store;
  SlowFinishBroker broker;
  FakeExecutor executor;
  std::unique_ptr<Worker> worker;
};

// One slot, three samples, the first one's commit held by the broker: the slot runs the other
// two meanwhile, the held task's lease is renewed, and run() waits for the held commit.
TEST(WorkerCommitBehind, TheSlotRunsItsNextTasksWhileACommitWaitsForTheBroker) {
  Harness h(3);
  ASSERT_TRUE(h.study);
  h.broker.hold(0);
  auto run = h.start(1, true);
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
  Harness h(3);
  ASSERT_TRUE(h.study);
  h.broker.hold(0);
  auto run = h.start(1, false);
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
  Harness h(4);
  ASSERT_TRUE(h.study);
  h.broker.fail(1);
  auto run = h.start(1, true);
  ASSERT_EQ(run.wait_for(kBound), std::future_status::ready);
  auto report = run.get();
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.error().message.find("the broker went away"), std::string::npos)
      << report.error().message;
  EXPECT_FALSE(h.done(1));
  EXPECT_TRUE(h.broker.released(1));
}

}  // namespace
}  // namespace merlin
