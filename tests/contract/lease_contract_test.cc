// Leases: what happens to a reserved message whose worker goes quiet, dies, or renews it.
#include <set>
#include <thread>

#include "tests/contract/contract_fixture.h"

namespace merlin::testing {
namespace {
using std::chrono::milliseconds;

TEST_P(Contract, UnackedMessageIsTakenOverByAnotherConsumerAfterTheLease) {
  if (!backend_->has_leases()) GTEST_SKIP() << "this broker has no leases: held until released";
  auto a = backend_->broker("a");
  auto b = backend_->broker("b");
  ASSERT_TRUE(a->publish("q", {msg(1)}).ok());
  auto first = take(*a);
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(take(*b).has_value()) << "not before the lease runs out";
  std::this_thread::sleep_for(backend_->lease() + milliseconds(100));
  auto second = take(*b);
  ASSERT_TRUE(second.has_value()) << "taken over after the lease";
  EXPECT_EQ(second->message, msg(1));
  EXPECT_FALSE(first->redelivered) << "a first delivery";
  EXPECT_TRUE(second->redelivered) << "flagged: the first run may have committed";
  EXPECT_EQ(first->deliveries, 1u);
  EXPECT_EQ(second->deliveries, 2u) << "counted, so a message that kills its workers is seen";
  ASSERT_TRUE(b->ack(*second).ok());
  EXPECT_TRUE(a->ack(*first).ok()) << "the slow worker's late ack is harmless";
  EXPECT_EQ(pending(*a, {"q"}), 0u);
}

// A dead worker held several tasks: once their lease is out, each reserve takes one over at
// once, not one per scan interval (a node's 64 orphans trickled back one every 10-20 s).
TEST_P(Contract, EveryExpiredMessageIsTakenOverBackToBack) {
  if (!backend_->has_leases()) GTEST_SKIP() << "this broker has no leases: held until released";
  constexpr int kHeld = 4;
  auto a = backend_->broker("a");
  auto b = backend_->broker("b");
  std::vector<TaskMessage> msgs;
  for (int i = 0; i < kHeld; ++i) msgs.push_back(msg(0, static_cast<SampleId>(i)));
  ASSERT_TRUE(a->publish("q", msgs).ok());
  for (int i = 0; i < kHeld; ++i) ASSERT_TRUE(take(*a).has_value());
  std::this_thread::sleep_for(backend_->lease() + milliseconds(100));
  // Reserves that do not wait: each must find an expired message there and then.
  std::set<SampleId> back;
  for (int i = 0; i < kHeld; ++i) {
    auto d = take(*b);
    ASSERT_TRUE(d.has_value()) << "expired message " << i + 1 << " of " << kHeld
                               << " not taken over by a reserve right after the previous one";
    EXPECT_TRUE(d->redelivered);
    back.insert(d->message.lo);
    ASSERT_TRUE(b->ack(*d).ok());
  }
  EXPECT_EQ(back.size(), static_cast<std::size_t>(kHeld)) << "each held message once";
}

TEST_P(Contract, KilledConsumersMessageIsRedeliveredToTheNext) {
  if (!backend_->has_leases()) GTEST_SKIP() << "this broker has no leases: held until released";
  {
    auto a = backend_->broker("a");
    ASSERT_TRUE(a->publish("q", {msg(1), msg(2)}).ok());
    ASSERT_TRUE(take(*a).has_value());  // then "killed": never acked, never released
  }
  auto b = backend_->broker("b");
  auto d2 = take(*b);
  ASSERT_TRUE(d2.has_value());
  EXPECT_EQ(d2->message, msg(2));
  EXPECT_FALSE(d2->redelivered);
  ASSERT_TRUE(b->ack(*d2).ok());
  EXPECT_EQ(pending(*b, {"q"}), 1u) << "the dead worker's message is still owed";
  auto d1 = take(*b, {"q"}, backend_->lease() * 10);
  ASSERT_TRUE(d1.has_value()) << "redelivered once the lease ran out";
  EXPECT_EQ(d1->message, msg(1));
  EXPECT_TRUE(d1->redelivered);
  ASSERT_TRUE(b->ack(*d1).ok());
  EXPECT_EQ(pending(*b, {"q"}), 0u);
}

TEST_P(Contract, ExtendingTheLeaseKeepsTheMessage) {
  auto a = backend_->broker("a");
  auto b = backend_->broker("b");
  ASSERT_TRUE(a->publish("q", {msg(1)}).ok());
  auto d = take(*a);
  ASSERT_TRUE(d.has_value());
  for (int i = 0; i < 4; ++i) {  // 4 × lease/2: twice the lease in all
    std::this_thread::sleep_for(backend_->lease() / 2);
    ASSERT_TRUE(a->extend_lease(*d).ok());
    EXPECT_FALSE(take(*b).has_value()) << "renewed at round " << i;
  }
  ASSERT_TRUE(a->ack(*d).ok());
  EXPECT_TRUE(a->extend_lease(*d).ok()) << "harmless after ack";
  EXPECT_FALSE(take(*b).has_value());
}

TEST_P(Contract, ReleaseByASupersededConsumerDoesNotDuplicateTheMessage) {
  if (!backend_->has_leases()) GTEST_SKIP() << "this broker has no leases: held until released";
  auto a = backend_->broker("a");
  auto b = backend_->broker("b");
  ASSERT_TRUE(a->publish("q", {msg(1)}).ok());
  auto first = take(*a);
  ASSERT_TRUE(first.has_value());
  std::this_thread::sleep_for(backend_->lease() + milliseconds(100));
  auto second = take(*b);
  ASSERT_TRUE(second.has_value());
  ASSERT_TRUE(a->release(*first).ok()) << "a drains after losing its lease";
  EXPECT_FALSE(take(*b).has_value()) << "b owns it now: a's release is a no-op";
  ASSERT_TRUE(b->ack(*second).ok());
  EXPECT_EQ(pending(*b, {"q"}), 0u);
}

}  // namespace
}  // namespace merlin::testing
