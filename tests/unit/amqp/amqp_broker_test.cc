// The Broker on a real, private RabbitMQ, with its reservations in memory (the contract suite
// runs it with Redis): what is RabbitMQ's own — a worker dying between the get and the record,
// nothing held unacked while a task runs, delay queues, a server restart with durable queues.
#include "adapters/broker/amqp/amqp_broker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "adapters/broker/amqp/amqp_names.h"
#include "tests/fakes/memory_reservations.h"
#include "tests/unit/amqp/rabbit_fixture.h"

namespace merlin::testing {
namespace {
using std::chrono::milliseconds;

TaskMessage msg(SampleId lo) {
  TaskMessage m;
  m.instance = InstanceId{0};
  m.lo = lo;
  m.hi = lo + 1;
  return m;
}

// Every handle of a test shares one table, as the workers of a study share the Redis.
class SharedTable : public ReservationTable {
 public:
  explicit SharedTable(std::shared_ptr<MemoryReservations> t) : t_(std::move(t)) {}
  Result<std::uint64_t> hold(const std::string& id, const Reservation& r,
                             std::int64_t lease_ms) override {
    return t_->hold(id, r, lease_ms);
  }
  Result<bool> renew(const std::string& id, std::int64_t ms) override { return t_->renew(id, ms); }
  Result<bool> drop(const std::string& id) override { return t_->drop(id); }
  Result<bool> held(const std::string& id) override { return t_->held(id); }
  Result<std::vector<std::pair<std::string, Reservation>>> take_expired(std::int64_t ms,
                                                                        std::size_t max) override {
    return t_->take_expired(ms, max);
  }
  Result<std::vector<std::pair<std::string, Reservation>>> all() override { return t_->all(); }
  Result<std::uint64_t> count() override { return t_->count(); }
  Result<void> add_queue(const std::string& q) override { return t_->add_queue(q); }
  Result<std::vector<std::string>> queues() override { return t_->queues(); }

 private:
  std::shared_ptr<MemoryReservations> t_;
};

class AmqpBrokerTest : public RabbitFixture {
 protected:
  void SetUp() override {
    RabbitFixture::SetUp();
    if (IsSkipped()) return;
    static int studies = 0;  // a fresh set of queues per test
    study_ = "t" + std::to_string(++studies);
    settings_ = settings();
  }
  std::unique_ptr<AmqpBroker> broker(const std::string& consumer = "a") {
    AmqpBrokerOptions o{study_, consumer, milliseconds(60'000), milliseconds(20'000)};
    return std::make_unique<AmqpBroker>(settings_, o, std::make_unique<SharedTable>(table_));
  }
  std::unique_ptr<AmqpConnection> raw() {
    auto c = AmqpConnection::open(settings_);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? std::move(*c) : nullptr;
  }

  AmqpSettings settings_;
  std::string study_;
  std::shared_ptr<MemoryReservations> table_ = std::make_shared<MemoryReservations>();
};

TEST_F(AmqpBrokerTest, AReservedMessageIsRecordedThenAckedSoRabbitMQHoldsNothing) {
  auto b = broker();
  table_->stops = 3;
  ASSERT_TRUE(b->publish("q", {msg(1)}).ok());
  auto d = b->reserve({"q"}, milliseconds(0));
  ASSERT_TRUE(d.ok() && d->has_value()) << (d.ok() ? "empty" : d.error().message);
  EXPECT_EQ((*d)->stop_notices, 3u) << "read with the reservation";
  EXPECT_EQ((*d)->deliveries, 1u);
  EXPECT_EQ(*table_->count(), 1u) << "the reservation is the task's copy";
  b.reset();  // the worker's connection closes while the task would run
  auto c = raw();
  ASSERT_TRUE(c);
  EXPECT_EQ(AmqpBroker::declare_pair(*c, study_, "q")->ready, 0u)
      << "acked to RabbitMQ: a closed connection brings nothing back";
  EXPECT_EQ(*broker("b")->pending({"q"}), 1u) << "still owed, through the reservation";
}

TEST_F(AmqpBrokerTest, AWorkerDyingBetweenTheGetAndTheRecordLosesNothing) {
  auto b = broker();
  ASSERT_TRUE(b->publish("q", {msg(9)}).ok());
  {
    auto c = raw();  // takes the message and dies before recording or acking it
    ASSERT_TRUE(c);
    auto m = c->get(amqp_names::task_queue(study_, "q"));
    ASSERT_TRUE(m.ok() && m->has_value());
  }
  auto d = b->reserve({"q"}, milliseconds(2000));
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->message, msg(9));
  EXPECT_TRUE((*d)->redelivered) << "RabbitMQ queued it again, flagged";
  ASSERT_TRUE(b->ack(**d).ok());
  EXPECT_EQ(*b->pending({"q"}), 0u);
}

TEST_F(AmqpBrokerTest, DelayedMessagesWaitInTheirDelayQueueThenComeBack) {
  auto b = broker();
  ASSERT_TRUE(b->publish_at("q", msg(5), Clock::now() + milliseconds(400)).ok());
  auto c = raw();
  ASSERT_TRUE(c);
  auto depth = AmqpBroker::declare_pair(*c, study_, "q");
  ASSERT_TRUE(depth.ok()) << depth.error().message;
  EXPECT_EQ(depth->ready, 0u);
  EXPECT_EQ(depth->delayed, 1u);
  EXPECT_EQ(*b->pending({"q"}), 1u);
  auto d = b->reserve({"q"}, milliseconds(5000));
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->message, msg(5));
}

TEST_F(AmqpBrokerTest, NarrowerMessagesComeFirstSoSplittingIsDepthFirst) {
  auto b = broker();
  auto range = [](SampleId lo, SampleId hi) {
    TaskMessage m = msg(lo);
    m.hi = hi;
    return m;
  };
  ASSERT_TRUE(b->publish("q", {range(0, 1000), range(1000, 1100), msg(5), range(2000, 2003),
                               msg(6)})
                  .ok());
  std::vector<SampleId> widths;
  for (int i = 0; i < 5; ++i) {
    auto d = b->reserve({"q"}, milliseconds(0));
    ASSERT_TRUE(d.ok() && d->has_value());
    widths.push_back((*d)->message.hi - (*d)->message.lo);
    ASSERT_TRUE(b->ack(**d).ok());
  }
  EXPECT_EQ(widths, (std::vector<SampleId>{1, 1, 3, 100, 1000}))
      << "single samples (in their order), then the narrowest range";
}

TEST_F(AmqpBrokerTest, GarbageIsDroppedAndTheNextMessageDelivered) {
  auto b = broker();
  ASSERT_TRUE(b->publish_raw("q", "not a task message").ok());
  ASSERT_TRUE(b->publish("q", {msg(4)}).ok());
  auto d = b->reserve({"q"}, milliseconds(0));
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->message, msg(4));
  ASSERT_TRUE(b->ack(**d).ok());
  EXPECT_EQ(*b->pending({"q"}), 0u) << "the garbage is gone, not pending";
}

// A reserve that finds nothing ready subscribes and waits for RabbitMQ to push (no polling);
// it takes no more than it asked for, and once it returns the rest is ready for other workers:
// nothing waits unacked in a worker that is not asking.
TEST_F(AmqpBrokerTest, AWaitingReserveIsPushedWorkAndLeavesTheRestToOthers) {
  auto a = broker("a");
  auto b = broker("b");
  ASSERT_TRUE(a->prepare({"q"}).ok());
  auto c = raw();
  ASSERT_TRUE(c);
  const std::string queue = amqp_names::task_queue(study_, "q");
  Result<std::vector<Delivery>> got = std::vector<Delivery>();
  std::thread waiter([&] { got = a->reserve_many({"q"}, 2, milliseconds(30'000)); });
  std::uint32_t subscribed = 0;
  for (int i = 0; i < 3000 && subscribed == 0; ++i) {  // until a waits subscribed (<= 30 s)
    auto n = c->consumers(queue);
    ASSERT_TRUE(n.ok()) << n.error().message;
    subscribed = *n;
    if (!subscribed) std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(subscribed, 1u) << "an empty queue: the reserve waits subscribed";
  ASSERT_TRUE(b->publish("q", {msg(1), msg(2), msg(3)}).ok());
  waiter.join();
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_GE(got->size(), 1u) << "pushed before the 30 s wait ran out";
  ASSERT_LE(got->size(), 2u) << "no more than asked for";
  EXPECT_EQ(*c->consumers(queue), 0u) << "the subscription ends with the reserve";
  EXPECT_EQ(*c->ready(queue), 3u - got->size()) << "the rest is ready, not held by a";
  EXPECT_EQ(*table_->count(), got->size()) << "what a took is recorded";
  std::size_t taken = got->size();
  while (true) {
    auto d = b->reserve({"q"}, milliseconds(0));
    ASSERT_TRUE(d.ok()) << d.error().message;
    if (!*d) break;
    ++taken;
  }
  EXPECT_EQ(taken, 3u) << "b took the rest at once";
}

// A task queue declared with other arguments (here: the 40 priority levels that earlier
// versions declared, not today's ten), as a study queued before an upgrade has it: RabbitMQ
// refuses the declaration and closes the channel; the broker opens it again and uses the
// queue as it is.
TEST_F(AmqpBrokerTest, AQueueDeclaredByAnEarlierVersionIsUsedAsItIs) {
  auto c = raw();
  ASSERT_TRUE(c);
  AmqpQueueOptions old;
  old.max_priority = 40;
  ASSERT_TRUE(c->declare_queue(amqp_names::task_queue(study_, "q"), old).ok());
  ASSERT_TRUE(c->publish(amqp_names::task_queue(study_, "q"), {encode(msg(7))}).ok());
  auto b = broker();
  auto p = b->publish("q", {msg(1)});
  ASSERT_TRUE(p.ok()) << p.error().message;
  std::vector<SampleId> got;
  for (int i = 0; i < 2; ++i) {
    auto d = b->reserve({"q"}, milliseconds(0));
    ASSERT_TRUE(d.ok()) << d.error().message;
    ASSERT_TRUE(d->has_value());
    got.push_back((*d)->message.lo);
    ASSERT_TRUE(b->ack(**d).ok());
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<SampleId>{1, 7}));
  EXPECT_EQ(*b->pending({"q"}), 0u);
}

TEST_F(AmqpBrokerTest, QueuedMessagesSurviveARestartAndTheHandleReconnects) {
  auto b = broker();
  ASSERT_TRUE(b->publish("q", {msg(1), msg(2)}).ok());
  ASSERT_EQ(server_->restart(), "");
  auto d = b->reserve({"q"}, milliseconds(0));
  ASSERT_TRUE(d.ok() && d->has_value()) << (d.ok() ? "empty" : d.error().message);
  EXPECT_EQ((*d)->message, msg(1)) << "durable queue, persistent messages, in order";
  ASSERT_TRUE(b->ack(**d).ok());
  EXPECT_EQ(*b->pending({"q"}), 1u);
}

}  // namespace
}  // namespace merlin::testing
