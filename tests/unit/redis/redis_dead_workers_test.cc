// Dead workers on Redis: a consumer whose heartbeat is older than dead_after (the server's
// clock) gives back every task it held at once, whatever the lease; a consumer with a fresh
// heartbeat, or with none at all, keeps its tasks until their lease. Heartbeats are written
// straight into the stamp hash with the server's time, so no test waits for one to age.
#include <future>
#include <set>

#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_reservations.h"
#include "adapters/broker/redis/redis_workers.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {
using std::chrono::milliseconds;

class RedisDeadWorkers : public RedisFixture {
 protected:
  void SetUp() override {
    RedisFixture::SetUp();
    settings_.lease = milliseconds(600'000);  // only heartbeats can explain a takeover
    settings_.dead_after = milliseconds(5'000);
  }

  std::unique_ptr<RedisBroker> broker(const std::string& consumer) {
    auto s = settings_;
    s.consumer = consumer;
    return std::make_unique<RedisBroker>(s);
  }

  std::optional<Delivery> take(RedisBroker& b) {
    auto d = b.reserve({"q"}, milliseconds(0));
    EXPECT_TRUE(d.ok()) << d.error().message;
    return d.ok() ? *d : std::nullopt;
  }

  // Records `consumer`'s last heartbeat `age` ago by the server's clock, and lets the scan
  // interval of queue q pass (the process that scanned it last no longer holds its scan).
  void beat_ago(const std::string& consumer, milliseconds age) {
    auto c = RedisConnection::open(settings_);
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE((*c)->command({"DEL", RedisKeys(settings_.study_key).prefix + "scan:q"}).ok());
    auto t = (*c)->command({"TIME"});
    ASSERT_TRUE(t.ok());
    auto now = std::stoll(t->elements[0].text()) * 1000 + std::stoll(t->elements[1].text()) / 1000;
    ASSERT_TRUE(
        (*c)->command({"HSET", kRedisWorkerBeats, consumer, std::to_string(now - age.count())})
            .ok());
  }

  std::set<std::string> consumers_of_leaf_stream() {
    std::set<std::string> out;
    auto c = RedisConnection::open(settings_);
    EXPECT_TRUE(c.ok());
    auto r = (*c)->command(
        {"XINFO", "CONSUMERS", RedisKeys(settings_.study_key).queue("q"), kRedisGroup});
    EXPECT_TRUE(r.ok());
    for (const auto& consumer : r->elements)
      for (std::size_t k = 0; k + 1 < consumer.elements.size(); k += 2)
        if (consumer.elements[k].text() == "name") out.insert(consumer.elements[k + 1].text());
    return out;
  }
};

TEST_F(RedisDeadWorkers, EveryTaskOfADeadWorkerComesBackAtOnceCounted) {
  constexpr int kHeld = 5;
  auto a = broker("a");
  std::vector<TaskMessage> msgs;
  for (int i = 0; i < kHeld; ++i) msgs.push_back(sample_msg(static_cast<SampleId>(i)));
  ASSERT_TRUE(a->publish("q", msgs).ok());
  std::vector<Delivery> held;
  for (int i = 0; i < kHeld; ++i) held.push_back(take(*a).value());
  beat_ago("a", milliseconds(6'000));
  auto b = broker("b");
  std::set<SampleId> back;
  for (int i = 0; i < kHeld; ++i) {
    auto d = take(*b);
    ASSERT_TRUE(d.has_value()) << "task " << i + 1 << " of the dead worker not back at once";
    EXPECT_TRUE(d->redelivered) << "its first run may have committed";
    EXPECT_EQ(d->deliveries, 2u) << "--max-deliveries counts it";
    back.insert(d->message.lo);
    ASSERT_TRUE(b->ack(*d).ok());
  }
  EXPECT_EQ(back.size(), static_cast<std::size_t>(kHeld)) << "each task once";
  EXPECT_FALSE(take(*b).has_value());
  EXPECT_FALSE(consumers_of_leaf_stream().count("a")) << "the dead consumer left the group";
  for (const auto& d : held) {
    EXPECT_TRUE(a->ack(d).ok()) << "a late ack of the dead worker is harmless";
    EXPECT_TRUE(a->extend_lease(d).ok());
  }
  EXPECT_EQ(b->pending({"q"}).value(), 0u);
}

TEST_F(RedisDeadWorkers, AFreshHeartbeatKeepsTheTasks) {
  auto a = broker("a");
  ASSERT_TRUE(a->publish("q", {sample_msg(1)}).ok());
  ASSERT_TRUE(take(*a).has_value());
  beat_ago("a", milliseconds(1'000));
  EXPECT_FALSE(take(*broker("b")).has_value()) << "a beat a second ago: alive";
  EXPECT_TRUE(consumers_of_leaf_stream().count("a"));
}

TEST_F(RedisDeadWorkers, AConsumerWithoutHeartbeatWaitsForItsLease) {
  auto a = broker("a");  // contract tests and old workers: no heartbeat record at all
  ASSERT_TRUE(a->publish("q", {sample_msg(1)}).ok());
  ASSERT_TRUE(take(*a).has_value());
  EXPECT_FALSE(take(*broker("b")).has_value()) << "not dead: its lease still runs";
}

TEST_F(RedisDeadWorkers, DeadAfterZeroLeavesTakeoverToTheLease) {
  settings_.dead_after = milliseconds(0);
  auto a = broker("a");
  ASSERT_TRUE(a->publish("q", {sample_msg(1)}).ok());
  ASSERT_TRUE(take(*a).has_value());
  beat_ago("a", milliseconds(600'000));
  EXPECT_FALSE(take(*broker("b")).has_value());
}

TEST_F(RedisDeadWorkers, DeliveriesAccumulateOverSuccessiveDeaths) {
  auto a = broker("a");
  ASSERT_TRUE(a->publish("q", {sample_msg(7)}).ok());
  ASSERT_TRUE(take(*a).has_value());
  beat_ago("a", milliseconds(10'000));
  auto b = broker("b");
  auto second = take(*b);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->deliveries, 2u);
  beat_ago("b", milliseconds(10'000));
  auto c = broker("c");
  auto third = take(*c);
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->message, sample_msg(7));
  EXPECT_EQ(third->deliveries, 3u) << "a task that kills its workers climbs to the cap";
  EXPECT_TRUE(b->release(*second).ok());
  EXPECT_FALSE(take(*c).has_value()) << "b's release after the takeover is a no-op";
}

// A queue is scanned by one process per interval: the others' reserves do not walk the
// consumers again (what keeps thousands of worker processes from scanning each other).
TEST_F(RedisDeadWorkers, OneProcessScansAQueuePerInterval) {
  auto a = broker("a");
  ASSERT_TRUE(a->publish("q", {sample_msg(1)}).ok());
  ASSERT_TRUE(take(*a).has_value());
  beat_ago("a", milliseconds(6'000));
  auto b = broker("b");
  ASSERT_TRUE(b->publish("q", {sample_msg(2)}).ok());
  auto first = take(*b);  // b scans (a's task comes back at the end of the queue), takes 2
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->message.lo, 2u);
  auto x = broker("x");
  ASSERT_TRUE(x->publish("q", {sample_msg(3)}).ok());
  ASSERT_TRUE(take(*x).has_value());  // x holds a task: 1 or 3
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->command({"HSET", kRedisWorkerBeats, "x", "1"}).ok());  // x is long dead
  auto y = broker("y");
  std::set<SampleId> got;
  while (auto d = take(*y)) got.insert(d->message.lo);
  EXPECT_EQ(got.size(), 1u) << "within b's interval nobody else scans: x's task waits";
  beat_ago("x", milliseconds(600'000));  // the interval passes (for the server's lock; z is a
  auto z = broker("z");                  // process whose own scan is due)
  auto again = take(*z);
  ASSERT_TRUE(again.has_value()) << "the next interval's scan gives x's task back";
  EXPECT_TRUE(again->redelivered);
}

// More than one script call's worth (256): one scan still gives every task back.
TEST_F(RedisDeadWorkers, ANodesWorthOfTasksComesBackInOneScan) {
  constexpr int kHeld = 600;
  auto a = broker("a");
  std::vector<TaskMessage> msgs;
  for (int i = 0; i < kHeld; ++i) msgs.push_back(sample_msg(static_cast<SampleId>(i)));
  ASSERT_TRUE(a->publish("q", msgs).ok());
  for (int i = 0; i < kHeld; ++i) ASSERT_TRUE(take(*a).has_value());
  beat_ago("a", milliseconds(6'000));
  auto b = broker("b");
  ASSERT_TRUE(take(*b).has_value());
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  auto p = (*c)->command({"XPENDING", RedisKeys(settings_.study_key).queue("q"), kRedisGroup});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->elements[0].as_integer().value_or(-1), 1) << "only b's one task is still held";
  for (int i = 1; i < kHeld; ++i) ASSERT_TRUE(take(*b).has_value()) << "task " << i;
}

// A worker waiting in XREADGROUP BLOCK reads a queued-again task with its count too.
TEST_F(RedisDeadWorkers, AWaitingWorkerReadsTheCountOfATaskQueuedAgain) {
  auto b = broker("b");
  auto waiting =
      std::async(std::launch::async, [&] { return b->reserve({"q"}, milliseconds(5'000)); });
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->command({"XADD", RedisKeys(settings_.study_key).queue("q"), "*", "m",
                             encode(sample_msg(3)), "d", "2"})
                  .ok());
  auto d = waiting.get();
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_TRUE((*d)->redelivered);
  EXPECT_EQ((*d)->deliveries, 3u);
}

TEST_F(RedisDeadWorkers, HeartbeatsAreStampedWithTheServersClockAndGoWithTheWorker) {
  RedisWorkerRegistry reg(settings_);
  WorkerRecord w;
  w.id = "h.1.w";
  w.name = "w";
  ASSERT_TRUE(reg.beat(w).ok());
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  auto t = (*c)->command({"TIME"});
  ASSERT_TRUE(t.ok());
  auto now = std::stoll(t->elements[0].text()) * 1000 + std::stoll(t->elements[1].text()) / 1000;
  auto stamp = (*c)->command({"HGET", kRedisWorkerBeats, w.id});
  ASSERT_TRUE(stamp.ok());
  auto at = std::stoll(stamp->text());
  EXPECT_LE(at, now);
  EXPECT_GT(at, now - 5'000);
  ASSERT_TRUE(reg.remove(w.id).ok());
  EXPECT_TRUE((*c)->command({"HGET", kRedisWorkerBeats, w.id})->is_nil());
}

// RabbitMQ's reservations (kept in Redis) of a dead holder are taken over at once too, by one
// caller only; those of a live holder or of one without heartbeat wait for their lease.
TEST_F(RedisDeadWorkers, ReservationsOfADeadHolderAreTakenOverOnceWhateverTheirLease) {
  RedisReservations table(settings_);
  constexpr std::int64_t kLease = 600'000;
  ASSERT_TRUE(table.hold("a.1", {"q", "m1", 1, "a"}, kLease).ok());
  ASSERT_TRUE(table.hold("a.2", {"q", "m2", 3, "a"}, kLease).ok());
  ASSERT_TRUE(table.hold("b.1", {"q", "m3", 1, "b"}, kLease).ok());
  ASSERT_TRUE(table.hold("c.1", {"q", "m4", 1, "c"}, kLease).ok());  // c: no heartbeat at all
  beat_ago("a", milliseconds(6'000));
  beat_ago("b", milliseconds(1'000));
  auto taken = table.take_expired(kLease, 100);
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  std::set<std::string> ids;
  for (const auto& [id, r] : *taken) {
    ids.insert(id);
    if (id == "a.2") EXPECT_EQ(r.deliveries, 3u) << "the count travels with it";
  }
  EXPECT_EQ(ids, (std::set<std::string>{"a.1", "a.2"})) << "only the dead holder's";
  auto again = table.take_expired(kLease, 100);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty()) << "a second caller does not take them too";
}

}  // namespace
}  // namespace merlin::testing
