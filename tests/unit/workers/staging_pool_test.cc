// StagingPool: every job queued runs before drain() returns; none is taken after it.
#include "workers/staging_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace merlin {
namespace {

class StagingPoolThreads : public ::testing::TestWithParam<int> {};

TEST_P(StagingPoolThreads, DrainRunsEveryQueuedJobThenRefusesMore) {
  StagingPool pool(GetParam(), 2);
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(pool.submit([&] { ran++; }));
  pool.drain();
  EXPECT_EQ(ran.load(), 100);
  EXPECT_EQ(pool.jobs_run(), 100u);
  EXPECT_FALSE(pool.submit([&] { ran++; }));
  EXPECT_EQ(ran.load(), 100);
}

INSTANTIATE_TEST_SUITE_P(Threads, StagingPoolThreads, ::testing::Values(1, 2, 4));

TEST(StagingPool, AFullQueueHoldsTheSubmitterUntilAJobIsTaken) {
  StagingPool pool(1, 1);
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  std::promise<void> first_started;
  ASSERT_TRUE(pool.submit([&, open] {
    first_started.set_value();
    open.wait();
  }));
  first_started.get_future().wait();  // the thread holds job 1; the queue is empty
  ASSERT_TRUE(pool.submit([] {}));    // fills the queue
  auto third = std::async(std::launch::async, [&] { return pool.submit([] {}); });
  // The third submit cannot return while the queue is full and the only thread is held.
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  gate.set_value();
  EXPECT_TRUE(third.get());
  pool.drain();
  EXPECT_EQ(pool.jobs_run(), 3u);
}

}  // namespace
}  // namespace merlin
