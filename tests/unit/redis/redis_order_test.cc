// Depth-first splitting on Redis: single samples are taken before ranges, narrow ranges before
// wide ones, whatever the order of publishing; so a study's queue stays small while it is
// split (Streams alone are FIFO: every leaf would be queued before the first one ran).
#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_connection.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {
using std::chrono::milliseconds;

class RedisOrder : public RedisFixture {
 protected:
  TaskMessage take(RedisBroker& b) {
    auto d = b.reserve({"q"}, milliseconds(0));
    EXPECT_TRUE(d.ok() && d->has_value());
    if (!d.ok() || !d->has_value()) return {};
    EXPECT_TRUE(b.ack(**d).ok());
    return (*d)->message;
  }
};

TEST_F(RedisOrder, LeavesFirstThenNarrowestRanges) {
  RedisBroker b(settings_);
  ASSERT_TRUE(
      b.publish("q", {sample_msg(0, 1000), sample_msg(0, 30), sample_msg(5, 6), sample_msg(40, 44)})
          .ok());
  ASSERT_TRUE(b.publish("q", {sample_msg(7, 8)}).ok());
  EXPECT_EQ(take(b), sample_msg(5, 6));
  EXPECT_EQ(take(b), sample_msg(7, 8));
  EXPECT_EQ(take(b), sample_msg(40, 44));
  EXPECT_EQ(take(b), sample_msg(0, 30));
  EXPECT_EQ(take(b), sample_msg(0, 1000));
  auto p = b.pending({"q"});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, 0u);
}

// A search's promotions (Broker::publish_first) are taken before every waiting message, in
// their own order, and are counted, released and purged like the rest.
TEST_F(RedisOrder, PublishFirstGoesBeforeLeavesAndRanges) {
  RedisBroker b(settings_);
  ASSERT_TRUE(b.publish("q", {sample_msg(0, 30), sample_msg(5, 6), sample_msg(7, 8)}).ok());
  ASSERT_TRUE(b.publish_first("q", {sample_msg(50, 51), sample_msg(52, 53)}).ok());
  auto p = b.pending({"q"});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, 5u);
  EXPECT_EQ(take(b), sample_msg(50, 51));
  // Released (a draining worker): back where it was, still first.
  auto d = b.reserve({"q"}, milliseconds(0));
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->message, sample_msg(52, 53));
  ASSERT_TRUE(b.release(**d).ok());
  EXPECT_EQ(take(b), sample_msg(52, 53));
  EXPECT_EQ(take(b), sample_msg(5, 6));
  ASSERT_TRUE(b.publish_first("q", {sample_msg(60, 61)}).ok());
  EXPECT_EQ(take(b), sample_msg(60, 61));
  EXPECT_EQ(take(b), sample_msg(7, 8));
  EXPECT_EQ(take(b), sample_msg(0, 30));
}

// A batched take is one script whatever the count: it fills the batch across the width
// Streams in the take order, and stops at the count.
TEST_F(RedisOrder, ReserveManyFillsTheBatchAcrossWidthsInTakeOrder) {
  RedisBroker b(settings_);
  ASSERT_TRUE(
      b.publish("q", {sample_msg(0, 1000), sample_msg(0, 30), sample_msg(5, 6), sample_msg(40, 44)})
          .ok());
  auto got = b.reserve_many({"q"}, 3, milliseconds(0));
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_EQ(got->size(), 3u) << "three messages in one call";
  EXPECT_EQ((*got)[0].message, sample_msg(5, 6));
  EXPECT_EQ((*got)[1].message, sample_msg(40, 44));
  EXPECT_EQ((*got)[2].message, sample_msg(0, 30));
  for (const auto& d : *got) {
    EXPECT_FALSE(d.redelivered);
    EXPECT_EQ(d.deliveries, 1u);
    EXPECT_TRUE(b.ack(d).ok());
  }
  auto rest = b.reserve_many({"q"}, 3, milliseconds(0));
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_EQ(rest->front().message, sample_msg(0, 1000));
}

// A delayed range comes back to its width's Stream (the bucket travels with it, computed in
// C++: the scripts do not read message text), so it still waits behind the leaves.
TEST_F(RedisOrder, ADelayedRangeComesBackBehindTheLeaves) {
  RedisBroker b(settings_);
  ASSERT_TRUE(b.publish_at("q", sample_msg(0, 64), Clock::now()).ok());
  ASSERT_TRUE(b.publish("q", {sample_msg(3, 4)}).ok());
  EXPECT_EQ(take(b), sample_msg(3, 4));  // this take moved the due range to its Stream
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  auto len = (*c)->command({"XLEN", RedisKeys(settings_.study_key).prefix + "w:6:q"});
  ASSERT_TRUE(len.ok());
  EXPECT_EQ(len->as_integer(), 1) << "64 samples: the Stream of bucket 6";
  EXPECT_EQ(take(b), sample_msg(0, 64));
}

// A delayed message written before buckets travelled ("<queue>|<tag>|<message>", a server
// upgraded under a running study) is still delivered.
TEST_F(RedisOrder, ADelayedMessageOfTheOlderFormatIsStillDelivered) {
  RedisBroker b(settings_);
  ASSERT_TRUE(b.publish("q", {sample_msg(1, 2)}).ok());  // creates the queue's Stream and group
  EXPECT_EQ(take(b), sample_msg(1, 2));
  auto c = RedisConnection::open(settings_);
  ASSERT_TRUE(c.ok());
  RedisKeys keys(settings_.study_key);
  ASSERT_TRUE(
      (*c)->command({"ZADD", keys.prefix + "delayed", "1", "q|old-tag|" + encode(sample_msg(9, 10))})
          .ok());
  ASSERT_TRUE((*c)->command({"HINCRBY", keys.prefix + "delayed_n", "q", "1"}).ok());
  EXPECT_EQ(take(b), sample_msg(9, 10));
}

// Splitting a 10^4-sample range the way workers do (level_max_dirs 25: ranges of 400, 16, 1)
// keeps the queue at O(levels × 25), not O(samples).
TEST_F(RedisOrder, SplittingDepthFirstKeepsTheQueueSmall) {
  RedisBroker b(settings_);
  ASSERT_TRUE(b.publish("q", {sample_msg(0, 10000)}).ok());
  std::uint64_t leaves = 0, most_pending = 0;
  while (true) {
    auto d = b.reserve({"q"}, milliseconds(0));
    ASSERT_TRUE(d.ok());
    if (!d->has_value()) break;
    const TaskMessage& m = (*d)->message;
    if (!m.is_leaf()) {
      std::uint64_t step = m.hi - m.lo > 400 ? 400 : m.hi - m.lo > 16 ? 16 : 1;
      std::vector<TaskMessage> children;
      for (SampleId lo = m.lo; lo < m.hi; lo += step)
        children.push_back(sample_msg(lo, std::min(m.hi, lo + step)));
      ASSERT_TRUE(b.publish("q", children).ok());
    } else {
      ++leaves;
    }
    ASSERT_TRUE(b.ack(**d).ok());
    auto p = b.pending({"q"});
    ASSERT_TRUE(p.ok());
    most_pending = std::max(most_pending, *p);
  }
  EXPECT_EQ(leaves, 10000u);
  EXPECT_LE(most_pending, 3u * 25u) << "breadth first would reach ~10^4";
}

}  // namespace
}  // namespace merlin::testing
