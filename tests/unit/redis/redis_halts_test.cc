// Step-requested stops on Redis: RedisStopChannel appends them to the study's halts Stream, a
// process reads those after its start mark, and every delivery carries the Stream's length so
// that a worker looks before it starts a task (both the take script and the blocking path).
#include <thread>

#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_stop_channel.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {
using std::chrono::milliseconds;

class RedisHalts : public RedisFixture {};

TEST_F(RedisHalts, HaltsAfterTheMarkAreReadOnceInOrder) {
  RedisStopChannel studies(settings_);
  ASSERT_TRUE(studies.halt(settings_.study_key, {"q0", "old", "w0", false}).ok());
  auto mark = studies.clock_mark();
  ASSERT_TRUE(mark.ok()) << mark.error().message;
  // Stream ids are milliseconds of the server clock: let it move past the mark.
  while (studies.clock_mark().value() == *mark) std::this_thread::yield();
  ASSERT_TRUE(studies.halt(settings_.study_key, {"q1", "hard", "w1", false}).ok());
  ASSERT_TRUE(studies.halt(settings_.study_key, {"", "stop", "w2", true}).ok());
  std::string m = *mark;
  auto h = studies.halts_since(settings_.study_key, m);
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->size(), 2u) << "the halt before the mark is not ours";
  EXPECT_EQ((*h)[0].queue, "q1");
  EXPECT_EQ((*h)[0].step, "hard");
  EXPECT_EQ((*h)[0].by, "w1");
  EXPECT_FALSE((*h)[0].all);
  EXPECT_TRUE((*h)[1].all);
  auto again = studies.halts_since(settings_.study_key, m);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty()) << "the mark moved past what was read";
}

TEST_F(RedisHalts, DeliveriesCarryTheNumberOfStops) {
  RedisBroker b(settings_);
  RedisStopChannel studies(settings_);
  ASSERT_TRUE(b.publish("q", {sample_msg(0)}).ok());
  auto d = b.reserve({"q"}, milliseconds(0));
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->stop_notices, 0u);
  ASSERT_TRUE(studies.halt(settings_.study_key, {"q", "s", "w", false}).ok());
  ASSERT_TRUE(b.publish("q", {sample_msg(1)}).ok());
  d = b.reserve({"q"}, milliseconds(0));
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->stop_notices, 1u) << "through the take script";
  // Through the blocking read: the message arrives while the reserve waits.
  ASSERT_TRUE(studies.halt(settings_.study_key, {"q", "s", "w", true}).ok());
  std::thread later([&] {
    // Publish once the reserve below is blocked in XREADGROUP (the server says so).
    auto admin = RedisConnection::open(settings_);
    ASSERT_TRUE(admin.ok());
    for (int i = 0; i < 5000; ++i) {
      auto info = (*admin)->command({"INFO", "clients"});
      if (info.ok() && info->text().find("blocked_clients:1") != std::string::npos) break;
      std::this_thread::sleep_for(milliseconds(1));
    }
    RedisBroker other(settings_);
    EXPECT_TRUE(other.publish("q", {sample_msg(2)}).ok());
  });
  d = b.reserve({"q"}, milliseconds(5000));
  later.join();
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->message, sample_msg(2));
  EXPECT_EQ((*d)->stop_notices, 2u) << "through the blocking read";
}

}  // namespace
}  // namespace merlin::testing
