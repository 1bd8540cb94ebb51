// The RabbitMQ client on a real, private rabbitmq-server: confirmed publishes, gets with
// manual acks, redelivery after a reject, quorum queues' delivery count, messages that survive
// a broker restart, and the errors a user meets (wrong password, nobody listening, no queue).
#include "adapters/broker/amqp/amqp_connection.h"

#include <gtest/gtest.h>

#include "tests/unit/amqp/rabbit_fixture.h"

namespace merlin::testing {
namespace {

class AmqpConnectionTest : public RabbitFixture {
 protected:
  std::unique_ptr<AmqpConnection> connect() {
    auto c = AmqpConnection::open(settings());
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? std::move(*c) : nullptr;
  }
};

TEST_F(AmqpConnectionTest, ConfirmedPublishGetAckAndRedeliveryOfARejectedMessage) {
  auto c = connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->declare_queue("q_basic").ok());
  ASSERT_TRUE(c->publish("q_basic", {"a", "b", "c"}).ok());
  EXPECT_EQ(*c->ready("q_basic"), 3u);

  auto first = c->get("q_basic");
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->body, "a");
  EXPECT_FALSE((*first)->redelivered);
  EXPECT_EQ(*c->ready("q_basic"), 2u) << "a taken message is not ready";
  ASSERT_TRUE(c->reject((*first)->tag, true).ok());

  auto again = c->get("q_basic");
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->body, "a") << "a requeued message goes back to the head";
  EXPECT_TRUE((*again)->redelivered);
  ASSERT_TRUE(c->ack((*again)->tag).ok());
  EXPECT_EQ(*c->ready("q_basic"), 2u);
  EXPECT_EQ(*c->purge("q_basic"), 2u);
  auto none = c->get("q_basic");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

// Consumers (how AmqpBroker waits for work): RabbitMQ pushes at most the prefetch unacked,
// one pushed while a publish waits for its confirms is kept for `next`, and once the consumer
// is cancelled nothing more comes.
TEST_F(AmqpConnectionTest, ConsumersArePushedAtMostThePrefetchUntilCancelled) {
  using std::chrono::milliseconds;
  auto c = connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->declare_queue("q_push").ok());
  ASSERT_TRUE(c->prefetch(2).ok());
  ASSERT_TRUE(c->consume("q_push").ok());
  ASSERT_TRUE(c->consume("q_push").ok()) << "already consumed: nothing to do";
  EXPECT_EQ(*c->consumers("q_push"), 1u);
  ASSERT_TRUE(c->publish("q_push", {"a", "b", "c"}).ok());
  std::vector<AmqpMessage> got;
  for (int i = 0; i < 2; ++i) {
    auto m = c->next(milliseconds(10'000));
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_TRUE(m->has_value()) << "pushed";
    EXPECT_EQ((*m)->queue, "q_push");
    got.push_back(**m);
  }
  EXPECT_EQ(got[0].body, "a");
  EXPECT_EQ(got[1].body, "b");
  auto none = c->next(milliseconds(300));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value()) << "two pushed and not acked: the prefetch is full";
  EXPECT_EQ(*c->ready("q_push"), 1u);
  ASSERT_TRUE(c->ack(got[0].tag).ok());
  auto third = c->next(milliseconds(10'000));
  ASSERT_TRUE(third.ok() && third->has_value()) << "an ack makes room for one more";
  EXPECT_EQ((*third)->body, "c");

  ASSERT_TRUE(c->cancel("q_push").ok());
  EXPECT_EQ(*c->consumers("q_push"), 0u);
  ASSERT_TRUE(c->reject(got[1].tag, true).ok());
  ASSERT_TRUE(c->reject((*third)->tag, true).ok());
  ASSERT_TRUE(c->publish("q_push", {"d"}).ok());
  auto after = c->next(milliseconds(300));
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value()) << "cancelled: nothing is pushed";
  EXPECT_EQ(*c->ready("q_push"), 3u) << "b and c rejected back to the queue, and d";
}

TEST_F(AmqpConnectionTest, QuorumQueuesCountDeliveries) {
  auto c = connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->declare_queue("q_quorum", AmqpQueueOptions{true, std::nullopt, ""}).ok());
  ASSERT_TRUE(c->publish("q_quorum", {"poison"}).ok());
  for (int i = 0; i < 2; ++i) {
    auto m = c->get("q_quorum");
    ASSERT_TRUE(m.ok() && m->has_value()) << (m.ok() ? "empty" : m.error().message);
    ASSERT_TRUE(c->reject((*m)->tag, true).ok());
  }
  auto m = c->get("q_quorum");
  ASSERT_TRUE(m.ok() && m->has_value());
  EXPECT_EQ((*m)->headers["x-delivery-count"], "2");
  ASSERT_TRUE(c->ack((*m)->tag).ok());
}

TEST_F(AmqpConnectionTest, UnackedMessagesGoBackWhenTheConnectionDies) {
  {
    auto c = connect();
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->declare_queue("q_dead").ok());
    ASSERT_TRUE(c->publish("q_dead", {"job"}).ok());
    auto m = c->get("q_dead");
    ASSERT_TRUE(m.ok() && m->has_value());
  }  // closed without an ack: a worker that died
  auto c = connect();
  ASSERT_TRUE(c);
  auto m = c->get("q_dead");
  ASSERT_TRUE(m.ok() && m->has_value());
  EXPECT_EQ((*m)->body, "job");
  EXPECT_TRUE((*m)->redelivered);
  ASSERT_TRUE(c->ack((*m)->tag).ok());
}

TEST_F(AmqpConnectionTest, APublishToNoQueueIsAnError) {
  auto c = connect();
  ASSERT_TRUE(c);
  auto p = c->publish("q_nobody_declared", {"x"});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kRuntime);
  EXPECT_NE(p.error().message.find("no queue q_nobody_declared took"), std::string::npos)
      << p.error().message;
}

TEST_F(AmqpConnectionTest, AWrongPasswordIsRefusedNamingTheBrokerNotThePassword) {
  auto s = settings();
  s.password = "not-the-s3cret";
  auto c = AmqpConnection::open(s);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kRuntime);
  EXPECT_NE(c.error().message.find("refused the login"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("amqp://guest@127.0.0.1:" + std::to_string(server_->port())),
            std::string::npos)
      << c.error().message;
  EXPECT_EQ(c.error().message.find("s3cret"), std::string::npos);
}

TEST_F(AmqpConnectionTest, NobodyListeningIsUnavailableNamingTheAddress) {
  AmqpSettings s;
  s.port = 1;  // nothing listens on port 1
  s.timeout = std::chrono::milliseconds(2000);
  auto c = AmqpConnection::open(s);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(c.error().message.find("amqp://guest@127.0.0.1:1/: cannot connect"),
            std::string::npos)
      << c.error().message;
}

// Last: it restarts the shared server.
TEST_F(AmqpConnectionTest, ZDurableMessagesSurviveABrokerRestart) {
  {
    auto c = connect();
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->declare_queue("q_durable").ok());
    ASSERT_TRUE(c->publish("q_durable", {"one", "two"}).ok());
  }
  ASSERT_EQ(server_->restart(), "");
  auto c = connect();
  ASSERT_TRUE(c);
  EXPECT_EQ(*c->ready("q_durable"), 2u);
}

}  // namespace
}  // namespace merlin::testing
