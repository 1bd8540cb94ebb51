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

// Fencing (docs/distributed.md): the first holder of a taken-over task learns it when it
// renews, and its late finish is refused and writes nothing, whether its ack would have been
// made at once or held (the instance's last sample); once the new holder has committed, the
// same finish is a duplicate as before (it may be a resend of a lost reply).
TEST_P(Contract, TheFirstHolderOfATakenOverTaskIsFenced) {
  if (!backend_->has_leases()) GTEST_SKIP() << "this broker has no leases: held until released";
  auto a = backend_->broker("a");
  auto b = backend_->broker("b");
  auto store = backend_->store({2, 1});
  for (const bool hold : {false, true}) {
    SCOPED_TRACE(hold ? "ack held at the instance's last sample" : "ack at once");
    const TaskMessage m = hold ? msg(1, 0) : msg(0, 1);
    ASSERT_TRUE(a->publish("q", {m}).ok());
    auto first = take(*a);
    ASSERT_TRUE(first.has_value());
    auto renewed = a->extend_lease(*first);
    ASSERT_TRUE(renewed.ok()) << renewed.error().message;
    EXPECT_TRUE(*renewed) << "still a's";
    std::this_thread::sleep_for(backend_->lease() + milliseconds(100));
    auto second = take(*b);
    ASSERT_TRUE(second.has_value()) << "taken over after the lease";
    renewed = a->extend_lease(*first);
    ASSERT_TRUE(renewed.ok()) << renewed.error().message;
    EXPECT_FALSE(*renewed) << "taken over: a learns it when it renews";

    FinishRequest r;
    r.instance = m.instance;
    r.sample = m.lo;
    r.follow_ups = {{"next", {msg(5, m.instance.v)}}};
    r.hold_ack_at_zero = hold;
    auto late = a->finish(*first, r, *store);
    ASSERT_TRUE(late.ok()) << late.error().message;
    EXPECT_TRUE(late->fenced) << "a's late commit is refused";
    EXPECT_FALSE(late->commit.newly_done);
    EXPECT_FALSE(late->acked);
    auto done = store->is_done(m.instance, m.lo);
    ASSERT_TRUE(done.ok());
    EXPECT_FALSE(*done) << "nothing written";
    EXPECT_FALSE(take(*b, {"next"}).has_value()) << "no follow-up published";
    auto f = b->finish(*second, r, *store);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_FALSE(f->fenced) << "b holds it";
    EXPECT_TRUE(f->commit.newly_done);
    if (!f->acked) {
      ASSERT_TRUE(b->ack(*second).ok());
    }
    auto after = a->finish(*first, r, *store);
    ASSERT_TRUE(after.ok()) << after.error().message;
    EXPECT_FALSE(after->fenced) << "committed: a duplicate, as a resent finish is";
    EXPECT_FALSE(after->commit.newly_done);
    auto next = take(*b, {"next"});
    ASSERT_TRUE(next.has_value());
    ASSERT_TRUE(b->ack(*next).ok());
    EXPECT_FALSE(take(*b, {"next"}).has_value()) << "follow-ups published once";
    EXPECT_EQ(pending(*a, {"q", "next"}), 0u);
  }
}

// The same in a batch (Broker::finish_many; on Redis one script, the leaves' ids checked per
// Stream): only the taken-over leaf is refused; the others commit and are acked.
TEST_P(Contract, ABatchOfFinishesRefusesOnlyItsTakenOverLeaf) {
  if (!backend_->has_leases()) GTEST_SKIP() << "this broker has no leases: held until released";
  auto a = backend_->broker("a");
  auto b = backend_->broker("b");
  auto store = backend_->store({3});
  ASSERT_TRUE(a->publish("q", {msg(0, 0)}).ok());
  auto lost = take(*a);
  ASSERT_TRUE(lost.has_value());
  std::this_thread::sleep_for(backend_->lease() + milliseconds(100));
  auto taken = take(*b);
  ASSERT_TRUE(taken.has_value()) << "taken over after the lease";
  ASSERT_TRUE(a->publish("q", {msg(0, 1), msg(0, 2)}).ok());
  std::vector<Delivery> mine;
  while (mine.size() < 2) {
    auto d = take(*a);
    ASSERT_TRUE(d.has_value());
    mine.push_back(*d);
  }
  std::vector<Delivery> batch{mine[0], *lost, mine[1]};
  std::vector<FinishRequest> reqs(3);
  std::vector<Broker::Finishing> items;
  for (std::size_t i = 0; i < 3; ++i) {
    reqs[i].instance = batch[i].message.instance;
    reqs[i].sample = batch[i].message.lo;
    items.push_back({&batch[i], &reqs[i]});
  }
  auto rs = a->finish_many(items, *store);
  ASSERT_EQ(rs.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) ASSERT_TRUE(rs[i].ok()) << i << ": " << rs[i].error().message;
  EXPECT_FALSE(rs[0]->fenced);
  EXPECT_TRUE(rs[0]->commit.newly_done);
  EXPECT_TRUE(rs[1]->fenced) << "the taken-over leaf is refused";
  EXPECT_FALSE(rs[1]->commit.newly_done);
  EXPECT_FALSE(rs[2]->fenced);
  EXPECT_TRUE(rs[2]->commit.newly_done);
  EXPECT_EQ(rs[2]->commit.remaining, 1u) << "the refused leaf does not count down";
  auto done = store->is_done(InstanceId{0}, 0);
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(*done) << "nothing written for it";
  EXPECT_EQ(pending(*a, {"q"}), 1u) << "only b's delivery is left";
  auto f = b->finish(*taken, reqs[1], *store);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_TRUE(f->commit.newly_done);
  EXPECT_EQ(f->commit.remaining, 0u);
  EXPECT_EQ(pending(*a, {"q"}), 0u);
}

}  // namespace
}  // namespace merlin::testing
