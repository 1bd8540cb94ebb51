// The worker registry behind query-workers and stop-workers, on a real redis-server.
#include "adapters/broker/redis/redis_workers.h"

#include "adapters/broker/redis/redis_connection.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {

WorkerRecord record(const std::string& id) {
  WorkerRecord w;
  w.id = id;
  w.name = "w";
  w.host = "h";
  w.pid = 1;
  w.spec_name = "s";
  w.queues = {"q1", "q2"};
  w.slots = 2;
  w.job = "4242";
  return w;
}

class RedisWorkers : public RedisFixture {};

TEST_F(RedisWorkers, HeartbeatsAreListedWithTheirJobAndStopsReachTheirWorker) {
  RedisWorkerRegistry reg(settings_);
  auto b = reg.beat(record("a"));
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_FALSE(*b);
  ASSERT_TRUE(reg.beat(record("b")).ok());
  auto all = reg.list();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].job, "4242");
  EXPECT_EQ((*all)[0].queues, (std::vector<std::string>{"q1", "q2"}));
  ASSERT_TRUE(reg.request_stop({"a"}).ok());
  EXPECT_TRUE(reg.beat(record("a")).value()) << "a was asked to stop";
  EXPECT_FALSE(reg.beat(record("b")).value());
}

TEST_F(RedisWorkers, StopRequestsOfWorkersThatAreGoneDoNotLinger) {
  RedisWorkerRegistry reg(settings_);
  ASSERT_TRUE(reg.beat(record("alive")).ok());
  ASSERT_TRUE(reg.request_stop({"alive", "died-long-ago"}).ok());
  ASSERT_TRUE(reg.list().ok());  // any listing cleans up
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  auto left = (*c)->command({"SMEMBERS", "merlin:workers:stop"});
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->elements.size(), 1u);
  EXPECT_EQ(left->elements[0].text(), "alive") << "the live worker's request stays";
}

}  // namespace
}  // namespace merlin::testing
