// The reservation table on a real Redis, where it commits beside the study's progress
// (RedisReservations::commit_held, the RabbitMQ broker's finish): the commit ends the
// reservation in the same script when the caller has nothing to publish after it, keeps it
// when the instance's last sample holds its ack, and refuses a taken-over one.
#include <gtest/gtest.h>

#include "adapters/broker/redis/redis_reservations.h"
#include "adapters/broker/redis/redis_state_store.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {

class RedisReservationsTest : public RedisFixture {
 protected:
  void SetUp() override {
    RedisFixture::SetUp();
    if (IsSkipped()) return;
    RedisStateStore store(settings_);
    ASSERT_TRUE(store.set_count(InstanceId{0}, 3).ok());
  }
  Reservation task() const { return Reservation{"q", "message", 1, "w"}; }
};

TEST_F(RedisReservationsTest, ACommitWithNothingToPublishAfterItEndsTheReservation) {
  RedisReservations table(settings_);
  ASSERT_TRUE(table.hold("r1", task(), 60'000).ok());
  ASSERT_TRUE(table.hold("r2", task(), 60'000).ok());
  auto c = table.commit_held("r1", InstanceId{0}, 0, Outcome::kSuccess, 0.5, true, false);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->has_value()) << "held: committed";
  EXPECT_TRUE((*c)->commit.newly_done);
  EXPECT_EQ((*c)->commit.remaining, 2u);
  EXPECT_TRUE((*c)->ended);
  EXPECT_FALSE(*table.held("r1")) << "ended by the commit";
  EXPECT_EQ(*table.count(), 1u);

  c = table.commit_held("r2", InstanceId{0}, 1, Outcome::kSuccess, 0.5, false, false);
  ASSERT_TRUE(c.ok() && c->has_value());
  EXPECT_FALSE((*c)->ended) << "follow-ups to publish first: the caller ends it";
  EXPECT_TRUE(*table.held("r2"));
}

TEST_F(RedisReservationsTest, TheLastSamplesHeldAckKeepsTheReservation) {
  RedisReservations table(settings_);
  for (SampleId s = 0; s < 3; ++s) {
    const std::string id = "r" + std::to_string(s);
    ASSERT_TRUE(table.hold(id, task(), 60'000).ok());
    auto c = table.commit_held(id, InstanceId{0}, s, Outcome::kSuccess, 0, true, true);
    ASSERT_TRUE(c.ok() && c->has_value());
    EXPECT_EQ((*c)->ended, s < 2) << "sample " << s << ": kept only at remaining 0";
    EXPECT_EQ(*table.held(id), s == 2);
  }
}

TEST_F(RedisReservationsTest, ADuplicateCommitStillEndsItsReservationAndATakenOverOneIsRefused) {
  RedisReservations table(settings_);
  ASSERT_TRUE(table.hold("first", task(), 60'000).ok());
  ASSERT_TRUE(table.hold("again", task(), 60'000).ok());
  ASSERT_TRUE(table.commit_held("first", InstanceId{0}, 0, Outcome::kSuccess, 0, true, false).ok());
  auto dup = table.commit_held("again", InstanceId{0}, 0, Outcome::kSuccess, 0, true, false);
  ASSERT_TRUE(dup.ok() && dup->has_value());
  EXPECT_FALSE((*dup)->commit.newly_done);
  EXPECT_TRUE((*dup)->ended) << "a redelivered copy's reservation ends too";
  auto fenced = table.commit_held("gone", InstanceId{0}, 1, Outcome::kSuccess, 0, true, false);
  ASSERT_TRUE(fenced.ok());
  EXPECT_FALSE(fenced->has_value()) << "not held, not committed: taken over";
  RedisStateStore store(settings_);
  EXPECT_FALSE(*store.is_done(InstanceId{0}, 1)) << "nothing written";
}

}  // namespace
}  // namespace merlin::testing
