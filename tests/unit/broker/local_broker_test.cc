// LocalBroker: the in-process queues of `merlin run --local`, on an injected clock.
#include "adapters/broker/local/local_broker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace merlin {
namespace {
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr milliseconds kNoWait{0};
constexpr milliseconds kShortWait{1};

// A clock that only moves when told to.
class FakeClock {
 public:
  Clock::time_point now() const { return now_; }
  void advance(Clock::duration d) { now_ += d; }
  LocalBroker::Now fn() {
    return [this] { return now_; };
  }

 private:
  Clock::time_point now_ = Clock::time_point{} + std::chrono::hours(1000);
};

TaskMessage msg(std::uint32_t instance, SampleId lo = 0) {
  TaskMessage m;
  m.instance = InstanceId{instance};
  m.lo = lo;
  m.hi = lo + 1;
  return m;
}

class LocalBrokerTest : public ::testing::Test {
 protected:
  // Reserves from `queues` without waiting; fails the test if nothing comes.
  Delivery take(const std::vector<std::string>& queues = {"q"}) {
    auto d = broker_.reserve(queues, kNoWait);
    EXPECT_TRUE(d.ok());
    EXPECT_TRUE(d.ok() && d->has_value()) << "nothing to reserve";
    return d.ok() && d->has_value() ? **d : Delivery{};
  }
  bool empty(const std::vector<std::string>& queues = {"q"}) {
    auto d = broker_.reserve(queues, kShortWait);
    EXPECT_TRUE(d.ok());
    return d.ok() && !d->has_value();
  }
  std::uint64_t pending(const std::vector<std::string>& queues) {
    auto p = broker_.pending(queues);
    EXPECT_TRUE(p.ok());
    return p.ok() ? *p : 0;
  }

  FakeClock clock_;
  LocalBroker broker_{clock_.fn()};
};

TEST_F(LocalBrokerTest, ReserveOnAnEmptyQueueReturnsNothingAfterTheWait) {
  auto d = broker_.reserve({"q"}, kShortWait);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->has_value());
}

TEST_F(LocalBrokerTest, OneBatchIsDeliveredInItsOwnOrder) {
  ASSERT_TRUE(broker_.publish("q", {msg(1), msg(2), msg(3)}).ok());
  EXPECT_EQ(take().message, msg(1));
  EXPECT_EQ(take().message, msg(2));
  EXPECT_EQ(take().message, msg(3));
  EXPECT_TRUE(empty());
}

TEST_F(LocalBrokerTest, NewerBatchesAreDeliveredBeforeOlderOnes) {
  // Depth-first: a split's children go ahead of the ranges queued before them.
  ASSERT_TRUE(broker_.publish("q", {msg(1), msg(2)}).ok());
  ASSERT_TRUE(broker_.publish("q", {msg(3), msg(4)}).ok());
  EXPECT_EQ(take().message, msg(3));
  EXPECT_EQ(take().message, msg(4));
  EXPECT_EQ(take().message, msg(1));
  EXPECT_EQ(take().message, msg(2));
}

TEST_F(LocalBrokerTest, DeliveryNamesItsQueue) {
  ASSERT_TRUE(broker_.publish("b", {msg(2)}).ok());
  auto d = take({"a", "b"});
  EXPECT_EQ(d.queue, "b");
  EXPECT_EQ(d.message, msg(2));
  EXPECT_FALSE(d.receipt.empty());
}

TEST_F(LocalBrokerTest, EarlierQueuesInTheListArePreferred) {
  ASSERT_TRUE(broker_.publish("b", {msg(2)}).ok());
  ASSERT_TRUE(broker_.publish("a", {msg(1)}).ok());
  EXPECT_EQ(take({"a", "b"}).queue, "a");
  EXPECT_EQ(take({"a", "b"}).queue, "b");
}

TEST_F(LocalBrokerTest, OtherQueuesAreNotServed) {
  ASSERT_TRUE(broker_.publish("other", {msg(1)}).ok());
  EXPECT_TRUE(empty({"q"}));
  EXPECT_EQ(take({"other"}).message, msg(1));
}

TEST_F(LocalBrokerTest, PublishingNothingIsFine) {
  ASSERT_TRUE(broker_.publish("q", {}).ok());
  EXPECT_TRUE(empty());
  EXPECT_EQ(pending({"q"}), 0u);
}

TEST_F(LocalBrokerTest, DelayedMessageIsNotDeliverableBeforeItIsDue) {
  ASSERT_TRUE(broker_.publish_at("q", msg(1), clock_.now() + seconds(10)).ok());
  EXPECT_TRUE(empty());
  clock_.advance(seconds(9));
  EXPECT_TRUE(empty());
  EXPECT_EQ(pending({"q"}), 1u) << "a delayed message is still pending";
}

TEST_F(LocalBrokerTest, DelayedMessageIsDeliverableOnceTheClockReachesItsDueTime) {
  ASSERT_TRUE(broker_.publish_at("q", msg(1), clock_.now() + seconds(10)).ok());
  clock_.advance(seconds(10));
  EXPECT_EQ(take().message, msg(1));
}

TEST_F(LocalBrokerTest, MessageDueNowIsDeliverableAtOnce) {
  ASSERT_TRUE(broker_.publish_at("q", msg(1), clock_.now()).ok());
  EXPECT_EQ(take().message, msg(1));
}

TEST_F(LocalBrokerTest, DelayedMessagesComeDueInDueOrder) {
  ASSERT_TRUE(broker_.publish_at("q", msg(2), clock_.now() + seconds(20)).ok());
  ASSERT_TRUE(broker_.publish_at("q", msg(1), clock_.now() + seconds(10)).ok());
  clock_.advance(seconds(30));
  EXPECT_EQ(take().message, msg(1));
  EXPECT_EQ(take().message, msg(2));
}

TEST_F(LocalBrokerTest, DueRetriesJoinTheBackOfTheQueue) {
  ASSERT_TRUE(broker_.publish_at("q", msg(9), clock_.now() + seconds(1)).ok());
  ASSERT_TRUE(broker_.publish("q", {msg(1), msg(2)}).ok());
  clock_.advance(seconds(1));
  EXPECT_EQ(take().message, msg(1));
  EXPECT_EQ(take().message, msg(2));
  EXPECT_EQ(take().message, msg(9));
}

TEST_F(LocalBrokerTest, DelayedMessageGoesToItsOwnQueue) {
  ASSERT_TRUE(broker_.publish_at("retry", msg(1), clock_.now()).ok());
  EXPECT_TRUE(empty({"q"}));
  EXPECT_EQ(take({"retry"}).queue, "retry");
}

TEST_F(LocalBrokerTest, ReservedMessageIsNotDeliveredTwice) {
  ASSERT_TRUE(broker_.publish("q", {msg(1)}).ok());
  take();
  EXPECT_TRUE(empty());
  EXPECT_EQ(broker_.reserved(), 1u);
}

TEST_F(LocalBrokerTest, AckRemovesTheMessageForGood) {
  ASSERT_TRUE(broker_.publish("q", {msg(1)}).ok());
  auto d = take();
  EXPECT_EQ(pending({"q"}), 1u) << "reserved counts as pending";
  ASSERT_TRUE(broker_.ack(d).ok());
  EXPECT_EQ(broker_.reserved(), 0u);
  EXPECT_EQ(pending({"q"}), 0u);
  EXPECT_TRUE(empty());
}

TEST_F(LocalBrokerTest, ReleasePutsTheMessageBackAtTheFront) {
  ASSERT_TRUE(broker_.publish("q", {msg(1), msg(2)}).ok());
  auto d = take();
  ASSERT_TRUE(broker_.release(d).ok());
  EXPECT_EQ(broker_.reserved(), 0u);
  EXPECT_EQ(broker_.depths()["q"], 2u);
  auto again = take();
  EXPECT_EQ(again.message, msg(1));
  EXPECT_NE(again.receipt, d.receipt) << "a new reservation";
}

TEST_F(LocalBrokerTest, ReleaseAfterAckDoesNotResurrectTheMessage) {
  ASSERT_TRUE(broker_.publish("q", {msg(1)}).ok());
  auto d = take();
  ASSERT_TRUE(broker_.ack(d).ok());
  ASSERT_TRUE(broker_.release(d).ok());
  EXPECT_TRUE(empty());
  EXPECT_TRUE(broker_.ack(d).ok()) << "acking twice is harmless";
}

TEST_F(LocalBrokerTest, PendingCountsOnlyTheNamedQueuesPlusEveryReservedMessage) {
  ASSERT_TRUE(broker_.publish("a", {msg(1), msg(2)}).ok());
  ASSERT_TRUE(broker_.publish("b", {msg(3), msg(4)}).ok());
  ASSERT_TRUE(broker_.publish_at("a", msg(5), clock_.now() + seconds(60)).ok());
  ASSERT_TRUE(broker_.publish_at("c", msg(6), clock_.now() + seconds(60)).ok());
  EXPECT_EQ(pending({"a"}), 3u);
  EXPECT_EQ(pending({"b"}), 2u);
  EXPECT_EQ(pending({"a", "b"}), 5u);
  EXPECT_EQ(pending({"c"}), 1u);
  EXPECT_EQ(pending({"none"}), 0u);

  auto d = take({"b"});
  EXPECT_EQ(pending({"a"}), 4u) << "plus the reserved message from b";
  EXPECT_EQ(pending({"none"}), 1u);
  ASSERT_TRUE(broker_.ack(d).ok());
  EXPECT_EQ(pending({"none"}), 0u);
}

TEST_F(LocalBrokerTest, DepthsCountWaitingMessagesPerQueue) {
  ASSERT_TRUE(broker_.publish("a", {msg(1), msg(2)}).ok());
  ASSERT_TRUE(broker_.publish("b", {msg(3)}).ok());
  ASSERT_TRUE(broker_.publish_at("b", msg(4), clock_.now() + seconds(5)).ok());
  take({"a"});
  auto depths = broker_.depths();
  EXPECT_EQ(depths["a"], 1u);
  EXPECT_EQ(depths["b"], 1u) << "delayed messages are not waiting yet";
}

TEST(LocalBroker, WaitingReserveWakesWhenAMessageIsPublished) {
  LocalBroker broker;
  Result<std::optional<Delivery>> got = std::optional<Delivery>();
  auto start = Clock::now();
  std::thread waiter([&] { got = broker.reserve({"q"}, std::chrono::seconds(20)); });
  ASSERT_TRUE(broker.publish("q", {msg(7)}).ok());
  waiter.join();
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->message, msg(7));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10)) << "woken, not timed out";
}

TEST(LocalBroker, ConcurrentReserversGetEachMessageOnce) {
  LocalBroker broker;
  constexpr int kMessages = 1000;
  std::vector<TaskMessage> all;
  for (int i = 0; i < kMessages; ++i) all.push_back(msg(0, static_cast<SampleId>(i)));
  ASSERT_TRUE(broker.publish("q", all).ok());
  std::vector<std::vector<SampleId>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      while (true) {
        auto d = broker.reserve({"q"}, kNoWait);
        if (!d.ok() || !d->has_value()) return;
        got[t].push_back((*d)->message.lo);
        (void)broker.ack(**d);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<int> seen(kMessages, 0);
  for (const auto& g : got)
    for (SampleId s : g) seen[s]++;
  for (int i = 0; i < kMessages; ++i) EXPECT_EQ(seen[i], 1) << "message " << i;
  EXPECT_EQ(broker.reserved(), 0u);
}

TEST_F(LocalBrokerTest, APurgeRemovesWaitingDelayedAndReservedMessagesOfItsQueues) {
  ASSERT_TRUE(broker_.publish("q", {msg(1), msg(2)}).ok());
  ASSERT_TRUE(broker_.publish_at("q", msg(3), clock_.now() + seconds(10)).ok());
  ASSERT_TRUE(broker_.publish("other", {msg(4)}).ok());
  const Delivery held = take();
  EXPECT_EQ(broker_.purge({"q"}), 3u);
  EXPECT_EQ(pending({"q"}), 0u);
  EXPECT_EQ(pending({"other"}), 1u) << "another queue is left alone";
  EXPECT_TRUE(broker_.release(held).ok()) << "releasing a purged message does nothing";
  EXPECT_TRUE(empty());
  EXPECT_EQ(broker_.purge({}), 1u) << "no queue named: every queue";
  EXPECT_EQ(pending({"other"}), 0u);
}

}  // namespace
}  // namespace merlin
