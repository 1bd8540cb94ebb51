// Measurements, not checks (run with --gtest_also_run_disabled_tests): Redis memory per
// committed sample and per queued message.
#include <atomic>
#include <thread>

#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_state_store.h"
#include "tests/fakes/redis_progress.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {

class RedisMemory : public RedisFixture {
 protected:
  long long used_memory() {
    auto c = RedisConnection::open(settings_);
    if (!c) return -1;
    auto r = (*c)->command({"MEMORY", "STATS"});  // key/value pairs, "total.allocated" first
    if (!r) return -1;
    for (std::size_t i = 0; i + 1 < r->elements.size(); i += 2)
      if (r->elements[i].text() == "total.allocated") return r->elements[i + 1].integer;
    return -1;
  }
};

TEST_F(RedisMemory, DISABLED_PerCommittedSample) {
  constexpr SampleId kSamples = 1'000'000;
  constexpr int kThreads = 4;
  RedisStateStore store(settings_);
  ASSERT_TRUE(init_progress(store.settings(), {kSamples}).ok());
  auto before = used_memory();
  auto start = Clock::now();
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (SampleId s = static_cast<SampleId>(t); s < kSamples; s += kThreads)
        if (!store.commit(InstanceId{0}, s, Outcome::kSuccess, 0.25).ok()) ++errors;
    });
  for (auto& t : threads) t.join();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  auto after = used_memory();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_TRUE(*store.is_complete(InstanceId{0}));
  std::printf(
      "committed %llu samples in %.1f s (%.0f/s, %d threads): %lld -> %lld bytes, "
      "%.3f bytes/sample\n",
      static_cast<unsigned long long>(kSamples), secs, kSamples / secs, kThreads, before, after,
      static_cast<double>(after - before) / kSamples);
}

TEST_F(RedisMemory, DISABLED_PerQueuedMessage) {
  constexpr int kBatches = 100, kBatch = 1000;
  RedisBroker broker(settings_);
  auto before = used_memory();
  for (int b = 0; b < kBatches; ++b) {
    std::vector<TaskMessage> msgs(kBatch);
    for (int i = 0; i < kBatch; ++i) {
      msgs[i].lo = static_cast<SampleId>(b * kBatch + i);
      msgs[i].hi = msgs[i].lo + 1;
    }
    ASSERT_TRUE(broker.publish("q", msgs).ok());
  }
  auto after = used_memory();
  std::printf("queued %d messages: %.1f bytes/message\n", kBatches * kBatch,
              static_cast<double>(after - before) / (kBatches * kBatch));
}

}  // namespace
}  // namespace merlin::testing
