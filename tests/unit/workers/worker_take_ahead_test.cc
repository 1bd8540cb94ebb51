// Taking ahead (WorkerOptions::take_ahead): while tasks are short, deliveries are reserved
// ahead of the slots while they run, up to the limit, and every sample still runs once; after
// a long task nothing is taken ahead; a stop gives back what was taken ahead.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
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
  std::future<Result<WorkerReport>> start(int slots, int ahead, bool exit_when_idle = true) {
    WorkerOptions o;
    o.slots = slots;
    o.poll = milliseconds(5);
    o.take_ahead = ahead;
    o.exit_when_idle = exit_when_idle;
    worker = std::make_unique<Worker>(broker, *store, *plan, *study->renderer, executor, o);
    return std::async(std::launch::async, [this] { return worker->run(); });
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
  LocalBroker broker;
  GateExecutor executor;
  std::unique_ptr<Worker> worker;
};

// Short tasks, one slot, two ahead (refilled when one is left): while the slot's third task
// is held, three deliveries are reserved (the running one and two ahead), never more; all 20
// samples run once.
TEST(WorkerTakeAhead, ShortTasksKeepDeliveriesReservedAheadOfTheSlot) {
  Harness h(20);
  ASSERT_TRUE(h.study);
  h.executor.gate(2);
  auto run = h.start(1, 2);
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
  Harness h(6);
  ASSERT_TRUE(h.study);
  h.executor.report_seconds(kShortTaskSeconds * 2);
  h.executor.gate(2);
  auto run = h.start(1, 2);
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
  Harness h(10);
  ASSERT_TRUE(h.study);
  h.executor.gate(2);
  auto run = h.start(1, 3, false);
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
