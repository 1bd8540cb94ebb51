// A command whose reply does not come in time is sent again on a new connection, and a paused
// server that wakes up runs every copy it was sent. The scripts that count or register must
// change things once however many copies run.
#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_lua.h"
#include "adapters/broker/redis/redis_script.h"
#include "adapters/broker/redis/redis_studies.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {
using std::chrono::milliseconds;

class RedisResend : public RedisFixture {
 protected:
  void SetUp() override {
    RedisFixture::SetUp();
    settings_.command_timeout = milliseconds(150);  // several copies in a 1 s pause
  }
  // Copies of `cmd` the server ran (from INFO commandstats).
  long long calls_of(const std::string& cmd) {
    auto c = RedisConnection::open(settings_);
    if (!c) return -1;
    auto info = (*c)->command({"INFO", "commandstats"});
    if (!info) return -1;
    const std::string key = "cmdstat_" + cmd + ":calls=";
    auto at = info->text().find(key);
    if (at == std::string::npos) return 0;
    return std::stoll(info->text().substr(at + key.size()));
  }
};

TEST_F(RedisResend, DelayedMessageResentToAPausedServerIsCountedOnce) {
  RedisBroker broker(settings_);
  // Connected, and the script loaded, before the pause: the copies are of the script's run.
  ASSERT_TRUE(broker.publish_at("q", sample_msg(6), Clock::now()).ok());
  auto runs_before = calls_of("evalsha");
  Result<void> p = Error::runtime("not run");
  {
    Paused pause(server_, milliseconds(1000));
    p = broker.publish_at("q", sample_msg(7), Clock::now() + milliseconds(100));
  }
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_GE(calls_of("evalsha") - runs_before, 2) << "no copy ran: the test tests nothing";
  EXPECT_EQ(*broker.pending({"q"}), 2u) << "two delayed messages, each counted once";
  std::vector<SampleId> got;
  for (int i = 0; i < 2; ++i) {
    auto d = broker.reserve({"q"}, milliseconds(2000));
    ASSERT_TRUE(d.ok() && d->has_value());
    got.push_back((*d)->message.lo);
    ASSERT_TRUE(broker.ack(**d).ok());
  }
  EXPECT_EQ(got, (std::vector<SampleId>{6, 7}));
  EXPECT_EQ(*broker.pending({"q"}), 0u) << "nothing left: --exit-when-done can end";
}

TEST_F(RedisResend, StudyEnqueueRunTwiceForOneWorkspaceQueuesOnce) {
  // What a copy run after a lost reply looks like to the server: the same call again.
  RedisStudies studies(settings_);
  StudyEnqueue st;
  st.record = {"s_1", "/ws/s_1", "s", 1};
  st.counts = {3};
  st.queues = {"q"};
  st.messages = {{"q", sample_msg(0, 3)}};
  ASSERT_TRUE(studies.enqueue(st).ok());
  auto again = studies.enqueue(st);
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto s = settings_;
  s.study_key = "s_1";
  RedisBroker broker(s);
  EXPECT_EQ(*broker.pending({"q"}), 1u) << "queued once";
  st.record.workspace = "/ws/other";
  auto other = studies.enqueue(st);
  ASSERT_FALSE(other.ok()) << "another workspace under the same key is still refused";
  EXPECT_EQ(other.error().code, ErrorCode::kExists);
  EXPECT_NE(other.error().message.find("is queued already"), std::string::npos);
}

TEST_F(RedisResend, DeadLetterRunTwiceMovesTheMessageOnce) {
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  RedisKeys keys(settings_.study_key);
  const std::string q = keys.queue("q");
  ASSERT_TRUE((*c)->command({"XGROUP", "CREATE", q, kRedisGroup, "0", "MKSTREAM"}).ok());
  auto id = (*c)->command({"XADD", q, "*", "m", "garbage"});
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(
      (*c)->command({"XREADGROUP", "GROUP", kRedisGroup, "w", "COUNT", "1", "STREAMS", q, ">"})
          .ok());
  RedisScript dead_letter(redis_lua::kDeadLetter);
  for (int copy = 0; copy < 2; ++copy)
    ASSERT_TRUE(dead_letter.run(**c, {q, keys.dead()}, {id->text(), "q", "garbage"}).ok());
  EXPECT_EQ((*c)->command({"XLEN", keys.dead()})->integer, 1);
  EXPECT_EQ((*c)->command({"XLEN", q})->integer, 0);
}

}  // namespace
}  // namespace merlin::testing
