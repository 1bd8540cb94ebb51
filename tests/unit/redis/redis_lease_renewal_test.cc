// A task longer than the broker's lease: the worker renews the lease while it runs, so the
// other worker does not take it over; without renewal it is taken over and runs twice.
#include <future>
#include <thread>

#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_state_store.h"
#include "merlin/core/plan/plan.h"
#include "tests/fakes/fake_executor.h"
#include "tests/fakes/redis_progress.h"
#include "tests/fakes/test_study.h"
#include "tests/unit/redis/redis_test_server.h"
#include "workers/worker.h"

namespace merlin::testing {
namespace {

constexpr const char* kOneLongTask = R"Y(
description: {name: long, description: d}
study:
  - name: long
    description: d
    run:
      cmd: echo long
)Y";

// The step's own duration is the workload here (not a synchronisation stand-in).
class SlowExecutor : public StepExecutor {
 public:
  Result<void> prepare(const RenderedTask& t) override { return inner.prepare(t); }
  Result<ExecResult> run(const RenderedTask& t) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    return inner.run(t);
  }
  Result<void> mark_finished(const RenderedTask& t) override { return inner.mark_finished(t); }
  FakeExecutor inner;
};

using RedisLease = RedisFixture;

int runs_of_long_task(RedisLease& f, RedisSettings settings, std::chrono::milliseconds renewal) {
  auto study = make_study(kOneLongTask, 0);
  EXPECT_TRUE(study);
  Plan plan(*study->graph);
  settings.lease = std::chrono::milliseconds(300);
  RedisStateStore store(settings);
  EXPECT_TRUE(init_progress(store.settings(), study->counts()).ok());
  RedisBroker producer(settings);
  auto ready = plan.ready_at_start(store);
  EXPECT_TRUE(ready.ok());
  for (const auto& r : *ready) EXPECT_TRUE(producer.publish(r.queue, {r.message}).ok());

  SlowExecutor executor;
  auto run_worker = [&](const std::string& consumer) {
    auto s = settings;
    s.consumer = consumer;
    RedisBroker broker(s);
    RedisStateStore own_store(s);
    WorkerOptions o;
    o.slots = 1;
    o.poll = std::chrono::milliseconds(20);
    o.lease_renewal = renewal;
    Worker worker(broker, own_store, plan, *study->renderer, executor, o);
    return worker.run();
  };
  auto w1 = std::async(std::launch::async, run_worker, "node1");
  auto w2 = std::async(std::launch::async, run_worker, "node2");
  EXPECT_EQ(w1.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(w2.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(w1.get().ok());
  EXPECT_TRUE(w2.get().ok());
  return static_cast<int>(executor.inner.count_of("long"));
}

TEST_F(RedisLease, RenewedLeaseKeepsALongTaskWithItsWorker) {
  EXPECT_EQ(runs_of_long_task(*this, settings_, std::chrono::milliseconds(100)), 1);
}

TEST_F(RedisLease, WithoutRenewalALongTaskIsTakenOverAndRunsAgain) {
  EXPECT_GE(runs_of_long_task(*this, settings_, std::chrono::milliseconds(0)), 2);
}

}  // namespace
}  // namespace merlin::testing
