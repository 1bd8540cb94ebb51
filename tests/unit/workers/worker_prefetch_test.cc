// The worker's batched reserve (Worker::next_delivery): idle slots share one
// Broker::reserve_many sized to the idle slots, so a worker never holds more reserved messages
// than it has free slots, and a drain gives back what it reserved but did not start. On the
// in-process broker, under a broker that hands out batches and counts what is held.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
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

// Takes up to n messages per reserve_many from the in-process broker (the first waiting, the
// rest not), and counts what is held: reserved and neither acked nor released.
class BatchingBroker : public Broker {
 public:
  explicit BatchingBroker(LocalBroker& inner) : inner_(inner) {}

  Result<void> publish(const std::string& q, const std::vector<TaskMessage>& m) override {
    return inner_.publish(q, m);
  }
  Result<void> publish_at(const std::string& q, const TaskMessage& m, Clock::time_point t) override {
    return inner_.publish_at(q, m, t);
  }
  Result<std::optional<Delivery>> reserve(const std::vector<std::string>& q,
                                          milliseconds wait) override {
    auto d = inner_.reserve(q, wait);
    if (d.ok() && d->has_value()) held(+1);
    return d;
  }
  Result<std::vector<Delivery>> reserve_many(const std::vector<std::string>& q, std::size_t n,
                                             milliseconds wait) override {
    {
      std::lock_guard lock(mu_);
      max_asked = std::max(max_asked, n);
    }
    std::vector<Delivery> out;
    while (out.size() < n) {
      auto d = inner_.reserve(q, out.empty() ? wait : milliseconds(0));
      if (!d.ok()) return d.error();
      if (!d->has_value()) break;
      out.push_back(std::move(**d));
      held(+1);
    }
    {
      std::lock_guard lock(mu_);
      max_batch = std::max(max_batch, out.size());
    }
    if (!out.empty() && after_batch) after_batch(out.size());
    return out;
  }
  Result<void> ack(const Delivery& d) override {
    held(-1);
    return inner_.ack(d);
  }
  Result<void> release(const Delivery& d) override {
    held(-1);
    {
      std::lock_guard lock(mu_);
      released++;
    }
    return inner_.release(d);
  }
  Result<bool> extend_lease(const Delivery& d) override {
    (void)d;
    std::lock_guard lock(mu_);
    renewed++;
    return true;
  }
  Result<std::uint64_t> pending(const std::vector<std::string>& q) override {
    auto p = inner_.pending(q);
    if (p.ok() && *p == 0) {
      std::lock_guard lock(mu_);
      quiescent_answers++;
    }
    return p;
  }

  std::mutex mu_;
  int now_held = 0, max_held = 0, released = 0, renewed = 0;
  int quiescent_answers = 0;  ///< pending() calls that answered 0
  std::size_t max_asked = 0, max_batch = 0;
  std::function<void(std::size_t)> after_batch;  ///< called after a batch of more than 0

 private:
  void held(int by) {
    std::lock_guard lock(mu_);
    now_held += by;
    max_held = std::max(max_held, now_held);
  }
  LocalBroker& inner_;
};

template <typename F>
bool wait_until(F f) {
  auto deadline = Clock::now() + kBound;
  while (Clock::now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(milliseconds(2));
  }
  return false;
}

// Four idle slots wait for work; 40 samples arrive: they are taken in batches of up to four
// (one call for the idle slots together), every sample runs once, and the worker never holds
// more than its four slots can run.
TEST(WorkerPrefetch, IdleSlotsShareOneBatchAndNeverHoldMoreThanTheSlots) {
  auto study = make_study(kOneSampledStep, 40);
  ASSERT_TRUE(study);
  Plan plan(*study->graph);
  LocalStateStore store(study->counts());
  LocalBroker local;
  BatchingBroker broker(local);
  FakeExecutor executor;
  WorkerOptions o;
  o.slots = 4;
  o.poll = milliseconds(5);
  o.exit_when_idle = false;
  Worker worker(broker, store, plan, *study->renderer, executor, o);
  auto done = std::async(std::launch::async, [&worker] { return worker.run(); });
  // Every slot idle: the one reserving asks for four.
  ASSERT_TRUE(wait_until([&] {
    std::lock_guard lock(broker.mu_);
    return broker.max_asked == 4;
  })) << "the idle slots reserve together";
  std::vector<TaskMessage> leaves;
  for (SampleId s = 0; s < 40; ++s) leaves.push_back({study->instance("A"), s, s + 1});
  ASSERT_TRUE(broker.publish("merlin", leaves).ok());
  bool finished = wait_until([&] {
    auto p = store.progress();
    return p.ok() && (*p)[study->instance("A").v].done == 40;
  });
  worker.request_stop();
  ASSERT_EQ(done.wait_for(kBound), std::future_status::ready);
  auto report = done.get();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(finished);
  for (SampleId s = 0; s < 40; ++s) EXPECT_EQ(executor.calls_of("A", s).size(), 1u) << s;
  std::lock_guard lock(broker.mu_);
  EXPECT_GE(broker.max_batch, 2u) << "some take brought several messages";
  EXPECT_LE(broker.max_batch, 4u);
  EXPECT_LE(broker.max_held, 4) << "never more reserved than slots";
  EXPECT_EQ(broker.now_held, 0) << "everything acked or given back";
}

// A drain while a batch is in the buffer: the slots start none of it and give all back.
TEST(WorkerPrefetch, DrainGivesBackWhatWasReservedButNotStarted) {
  auto study = make_study(kOneSampledStep, 8);
  ASSERT_TRUE(study);
  Plan plan(*study->graph);
  LocalStateStore store(study->counts());
  LocalBroker local;
  BatchingBroker broker(local);
  FakeExecutor executor;
  WorkerOptions o;
  o.slots = 4;
  o.poll = milliseconds(5);
  o.exit_when_idle = false;
  Worker worker(broker, store, plan, *study->renderer, executor, o);
  broker.after_batch = [&](std::size_t) { worker.request_stop(); };
  auto done = std::async(std::launch::async, [&worker] { return worker.run(); });
  ASSERT_TRUE(wait_until([&] {
    std::lock_guard lock(broker.mu_);
    return broker.max_asked == 4;
  }));
  std::vector<TaskMessage> leaves;
  for (SampleId s = 0; s < 8; ++s) leaves.push_back({study->instance("A"), s, s + 1});
  ASSERT_TRUE(broker.publish("merlin", leaves).ok());
  ASSERT_EQ(done.wait_for(kBound), std::future_status::ready);
  auto report = done.get();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(executor.calls().empty()) << "stopped before any task started";
  std::lock_guard lock(broker.mu_);
  EXPECT_GE(broker.max_batch, 2u) << "a batch was in the buffer";
  EXPECT_GE(broker.released, static_cast<int>(broker.max_batch)) << "the whole batch went back";
  EXPECT_EQ(broker.now_held, 0);
  auto p = local.pending({"merlin"});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, 8u) << "all eight queued again";
}

// --exit-when-done with many slots: once one slot finds nothing queued, delayed or in flight,
// every idle slot ends with it. Each finding it out alone, in turn behind the slot reserving
// (a blocking read each), held an allocation for slots × the read's wait after the study ended.
TEST(WorkerPrefetch, OneSlotFindingTheQueuesQuiescentEndsEveryIdleSlot) {
  auto study = make_study(kOneSampledStep, 16);
  ASSERT_TRUE(study);
  Plan plan(*study->graph);
  LocalStateStore store(study->counts());
  LocalBroker local;
  BatchingBroker broker(local);
  std::vector<TaskMessage> leaves;
  for (SampleId s = 0; s < 16; ++s) leaves.push_back({study->instance("A"), s, s + 1});
  ASSERT_TRUE(broker.publish("merlin", leaves).ok());
  FakeExecutor executor;
  WorkerOptions o;
  o.slots = 64;
  o.poll = milliseconds(5);
  o.exit_when_idle = true;
  Worker worker(broker, store, plan, *study->renderer, executor, o);
  auto done = std::async(std::launch::async, [&worker] { return worker.run(); });
  ASSERT_EQ(done.wait_for(kBound), std::future_status::ready);
  auto report = done.get();
  ASSERT_TRUE(report.ok()) << report.error().message;
  for (SampleId s = 0; s < 16; ++s) EXPECT_EQ(executor.calls_of("A", s).size(), 1u) << s;
  std::lock_guard lock(broker.mu_);
  EXPECT_GE(broker.quiescent_answers, 1);
  EXPECT_LE(broker.quiescent_answers, 4)
      << "the slots ended together, not each after its own look (that was 64)";
  EXPECT_EQ(broker.now_held, 0);
}

}  // namespace
}  // namespace merlin
