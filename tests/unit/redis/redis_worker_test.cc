// The real worker loop over Redis: two workers (separate consumers, as on two nodes), each
// with two slots, share one study; everything runs and commits once and both exit when idle.
#include <future>

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

constexpr const char* kPipeline = R"Y(
description: {name: pipe, description: d}
study:
  - name: A
    description: d
    run:
      cmd: echo $(MERLIN_SAMPLE_ID)
      retry_delay: 0.2
      max_retries: 3
  - name: B
    description: d
    run:
      cmd: echo $(V)
      depends: [A]
  - name: C
    description: d
    run:
      cmd: echo collect
      depends: [B_*]
merlin:
  samples:
    file: samples.csv
    column_labels: [V]
)Y";

using RedisWorker = RedisFixture;

TEST_F(RedisWorker, TwoWorkersShareAStudyAndEachTaskCommitsOnce) {
  constexpr std::uint64_t kN = 100;
  auto study = make_study(kPipeline, kN);
  ASSERT_TRUE(study);
  Plan plan(*study->graph);
  settings_.lease = std::chrono::milliseconds(30'000);
  RedisStateStore store(settings_);
  ASSERT_TRUE(init_progress(store.settings(), study->counts()).ok());
  RedisBroker producer(settings_);
  auto ready = plan.ready_at_start(store);
  ASSERT_TRUE(ready.ok()) << ready.error().message;
  for (const auto& r : *ready) ASSERT_TRUE(producer.publish(r.queue, {r.message}).ok());

  FakeExecutor executor;
  executor.script("A", 7, {104});  // one retry through the delayed set
  auto run_worker = [&](const std::string& consumer) {
    auto s = settings_;
    s.consumer = consumer;
    RedisBroker broker(s);
    RedisStateStore own_store(s);
    WorkerOptions o;
    o.slots = 2;
    o.poll = std::chrono::milliseconds(20);
    Worker worker(broker, own_store, plan, *study->renderer, executor, o);
    return worker.run();
  };
  auto w1 = std::async(std::launch::async, run_worker, "node1");
  auto w2 = std::async(std::launch::async, run_worker, "node2");
  ASSERT_EQ(w1.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  ASSERT_EQ(w2.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  auto r1 = w1.get(), r2 = w2.get();
  ASSERT_TRUE(r1.ok()) << r1.error().message;
  ASSERT_TRUE(r2.ok()) << r2.error().message;

  for (const auto& [task, n] : executor.run_counts()) {
    int expected = task == std::pair<std::string, std::uint64_t>{"A", 7} ? 2 : 1;
    EXPECT_EQ(n, expected) << task.first << " sample " << task.second;
  }
  EXPECT_EQ(executor.count_of("C"), 1u) << "the funnel is released once";
  auto p = store.progress();
  ASSERT_TRUE(p.ok());
  for (const auto& inst : *p) EXPECT_EQ(inst.done, inst.total);
  EXPECT_EQ(r1->requeued + r2->requeued, 1u);
  EXPECT_GT(r1->executed, 0u) << "both workers took part";
  EXPECT_GT(r2->executed, 0u) << "both workers took part";
  EXPECT_EQ(*producer.pending({"merlin"}), 0u);
}

}  // namespace
}  // namespace merlin::testing
