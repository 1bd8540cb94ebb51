// The Redis broker and state store across a redis-server restart (AOF), and Redis-only details:
// re-init keeps progress, dead letters keep their text, acked messages leave the Stream.
#include <thread>

#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_state_store.h"
#include "tests/fakes/redis_progress.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {
using std::chrono::milliseconds;

class RedisDurability : public RedisFixture {
 protected:
  long long raw_int(const RedisCommand& argv) {
    auto c = RedisConnection::open(settings_);
    if (!c) return -1;
    auto r = (*c)->command(argv);
    return r ? r->as_integer().value_or(-1) : -1;
  }
  void survive_restart(bool hard) {
    RedisBroker broker(settings_);
    RedisStateStore store(settings_);
    ASSERT_TRUE(init_progress(store.settings(), {10}).ok());
    ASSERT_TRUE(
        broker.publish("q", {sample_msg(0), sample_msg(1), sample_msg(2), sample_msg(3)}).ok());
    ASSERT_TRUE(broker.publish_at("q", sample_msg(9), Clock::now() + milliseconds(500)).ok());
    auto in_flight = broker.reserve({"q"}, milliseconds(0));
    ASSERT_TRUE(in_flight.ok() && in_flight->has_value());
    ASSERT_TRUE(store.commit(InstanceId{0}, 0, Outcome::kSuccess, 1.5).ok());
    ASSERT_TRUE(store.commit(InstanceId{0}, 5, Outcome::kSoftFail, 0.5).ok());
    ASSERT_TRUE(store.claim_release(InstanceId{0}).ok());
    // appendfsync everysec: a SIGKILL loses at most the last second of writes.
    if (hard) std::this_thread::sleep_for(milliseconds(1500));

    ASSERT_EQ(server_.restart(hard), "");

    auto p = store.progress();  // the same objects reconnect
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ((*p)[0].done, 2u);
    EXPECT_EQ((*p)[0].failed, 1u);
    EXPECT_DOUBLE_EQ((*p)[0].seconds, 2.0);
    EXPECT_FALSE(store.commit(InstanceId{0}, 5, Outcome::kSuccess, 1)->newly_done);
    EXPECT_FALSE(*store.claim_release(InstanceId{0}));
    EXPECT_EQ(*broker.pending({"q"}), 5u) << "3 queued + 1 in flight + 1 delayed";
    ASSERT_TRUE(broker.ack(**in_flight).ok()) << "the receipt is still valid";
    std::vector<SampleId> got;
    while (true) {
      auto d = broker.reserve({"q"}, milliseconds(1000));
      ASSERT_TRUE(d.ok()) << d.error().message;
      if (!d->has_value()) break;
      got.push_back((*d)->message.lo);
      ASSERT_TRUE(broker.ack(**d).ok());
    }
    EXPECT_EQ(got, (std::vector<SampleId>{1, 2, 3, 9}));
    EXPECT_EQ(*broker.pending({"q"}), 0u);
  }
};

TEST_F(RedisDurability, CommittedStateAndQueuedMessagesSurviveACleanRestart) {
  survive_restart(false);
}

TEST_F(RedisDurability, CommittedStateAndQueuedMessagesSurviveAKillAfterTheFsyncSecond) {
  survive_restart(true);
}

TEST_F(RedisDurability, CommitToAnUninitialisedInstanceFails) {
  RedisStateStore store(settings_);
  ASSERT_TRUE(init_progress(store.settings(), {3}).ok());
  auto c = store.commit(InstanceId{4}, 0, Outcome::kSuccess, 0);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kRuntime);
  EXPECT_NE(c.error().message.find("instance 4 was not initialised"), std::string::npos)
      << c.error().message;
}

TEST_F(RedisDurability, AckedMessagesLeaveTheStreamAndDeadLettersKeepTheirText) {
  RedisBroker broker(settings_);
  ASSERT_TRUE(broker.publish("q", {sample_msg(0), sample_msg(1)}).ok());
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  RedisKeys keys(settings_.study_key);
  ASSERT_TRUE((*c)->command({"XADD", keys.queue("q"), "*", "m", "v2 from the future"}).ok());
  for (int i = 0; i < 2; ++i) {
    auto d = broker.reserve({"q"}, milliseconds(0));
    ASSERT_TRUE(d.ok() && d->has_value());
    ASSERT_TRUE(broker.ack(**d).ok());
  }
  EXPECT_FALSE(broker.reserve({"q"}, milliseconds(0))->has_value());
  EXPECT_EQ(raw_int({"XLEN", keys.queue("q")}), 0) << "memory stays O(in flight)";
  auto dead = (*c)->command({"XRANGE", keys.dead(), "-", "+"});
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->elements.size(), 1u);
  const auto& fields = dead->elements[0].elements[1].elements;
  EXPECT_EQ(fields.back().text(), "v2 from the future");
}

TEST_F(RedisDurability, PublishToAStoppedServerFailsWithTheAddressAndQueuesNothing) {
  settings_.reconnect_budget = milliseconds(300);
  RedisBroker broker(settings_);
  ASSERT_TRUE(broker.publish("q", {sample_msg(0)}).ok());
  server_.stop();
  auto p = broker.publish("q", {sample_msg(1), sample_msg(2), sample_msg(3)});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(p.error().message.find("redis " + settings_.address()), std::string::npos)
      << p.error().message;
  ASSERT_EQ(server_.restart(), "");
  EXPECT_EQ(*broker.pending({"q"}), 1u);
}

}  // namespace
}  // namespace merlin::testing
