// The Broker on a real, private RabbitMQ (first part of issue #11): confirmed publishes, reserve
// in the queues' order of preference, ack, release, redelivery of a dead handle's message,
// garbage dropped, and the refusal of what is not there yet (delays).
#include "adapters/broker/amqp/amqp_broker.h"

#include <gtest/gtest.h>

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

class AmqpBrokerTest : public RabbitFixture {
 protected:
  void SetUp() override {
    RabbitFixture::SetUp();
    if (IsSkipped()) return;
    static int studies = 0;  // a fresh set of queues per test
    prefix_ = "merlin.t" + std::to_string(++studies) + ".";
    settings_ = settings();
  }
  std::unique_ptr<AmqpBroker> broker() { return std::make_unique<AmqpBroker>(settings_, prefix_); }

  AmqpSettings settings_;
  std::string prefix_;
};

TEST_F(AmqpBrokerTest, EarlierQueuesArePreferredAndAnAckedMessageIsGone) {
  auto b = broker();
  ASSERT_TRUE(b->publish("a", {msg(1), msg(2)}).ok());
  ASSERT_TRUE(b->publish("b", {msg(3)}).ok());
  EXPECT_EQ(*b->pending({"a", "b"}), 3u);
  auto d = b->reserve({"b", "a"}, milliseconds(0));
  ASSERT_TRUE(d.ok() && d->has_value()) << (d.ok() ? "empty" : d.error().message);
  EXPECT_EQ((*d)->queue, "b");
  EXPECT_EQ((*d)->message, msg(3));
  EXPECT_FALSE((*d)->redelivered);
  EXPECT_EQ(*b->pending({"b"}), 1u) << "held until acked";
  ASSERT_TRUE(b->ack(**d).ok());
  EXPECT_EQ(*b->pending({"b"}), 0u);
  auto next = b->reserve({"b", "a"}, milliseconds(0));
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ((*next)->message, msg(1)) << "a batch is delivered in its own order";
}

TEST_F(AmqpBrokerTest, AReleasedMessageIsDeliveredAgain) {
  auto b = broker();
  ASSERT_TRUE(b->publish("q", {msg(7)}).ok());
  auto d = b->reserve({"q"}, milliseconds(0));
  ASSERT_TRUE(d.ok() && d->has_value());
  ASSERT_TRUE(b->release(**d).ok());
  auto again = b->reserve({"q"}, milliseconds(1000));
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->message, msg(7));
  EXPECT_TRUE((*again)->redelivered);
  ASSERT_TRUE(b->ack(**again).ok());
}

TEST_F(AmqpBrokerTest, ADeadHandlesMessageGoesToTheNext) {
  auto second = broker();
  {
    auto first = broker();
    ASSERT_TRUE(first->publish("q", {msg(9)}).ok());
    auto d = first->reserve({"q"}, milliseconds(0));
    ASSERT_TRUE(d.ok() && d->has_value());
  }  // its connection closes unacked: a worker that died
  auto d = second->reserve({"q"}, milliseconds(2000));
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->message, msg(9));
  EXPECT_TRUE((*d)->redelivered);
  ASSERT_TRUE(second->ack(**d).ok());
}

TEST_F(AmqpBrokerTest, ReserveOnAnEmptyQueueWaitsThenReturnsNothing) {
  auto b = broker();
  auto start = Clock::now();
  auto d = b->reserve({"empty"}, milliseconds(300));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_FALSE(d->has_value());
  EXPECT_GE(Clock::now() - start, milliseconds(300));
}

TEST_F(AmqpBrokerTest, GarbageIsDroppedAndTheNextMessageDelivered) {
  auto raw = AmqpConnection::open(settings_);
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE((*raw)->declare_queue(prefix_ + "q").ok());
  ASSERT_TRUE((*raw)->publish(prefix_ + "q", {"not a task message"}).ok());
  auto b = broker();
  ASSERT_TRUE(b->publish("q", {msg(4)}).ok());
  auto d = b->reserve({"q"}, milliseconds(0));
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->message, msg(4));
}

TEST_F(AmqpBrokerTest, DelayedMessagesAreRefusedSayingSo) {
  auto b = broker();
  auto p = b->publish_at("q", msg(1), Clock::now());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("delayed messages"), std::string::npos) << p.error().message;
}

}  // namespace
}  // namespace merlin::testing
