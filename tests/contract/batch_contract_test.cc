// The contract of Broker::reserve_many (batched reserve) and Broker::finish (commit + publish
// + ack of a finished leaf): the same answers on every backend, whether it takes several
// messages per call (Redis) or one (the default), finishes in one script (Redis) or in three
// calls (the default).
#include <algorithm>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "tests/contract/contract_fixture.h"

namespace merlin::testing {
namespace {
using std::chrono::milliseconds;

std::vector<Delivery> take_many(Broker& b, std::size_t n,
                                const std::vector<std::string>& queues = {"q"}) {
  auto d = b.reserve_many(queues, n, milliseconds(0));
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().message);
  return d.ok() ? *d : std::vector<Delivery>{};
}

TaskMessage range(std::uint32_t instance, SampleId lo, SampleId hi) {
  TaskMessage m;
  m.instance = InstanceId{instance};
  m.lo = lo;
  m.hi = hi;
  return m;
}

TEST_P(Contract, ReserveManyGivesAtMostNInTheOrderOfSingleReserves) {
  auto b = backend_->broker();
  // The same mix on two queues: ranges of two widths and single samples, interleaved.
  std::vector<TaskMessage> mix{range(9, 0, 8), msg(1), range(8, 0, 2), msg(2), msg(3),
                               range(7, 0, 100)};
  ASSERT_TRUE(b->publish("one", mix).ok());
  ASSERT_TRUE(b->publish("many", mix).ok());
  std::vector<TaskMessage> singly, batched;
  while (auto d = take(*b, {"one"})) {
    singly.push_back(d->message);
    ASSERT_TRUE(b->ack(*d).ok());
  }
  for (int round = 0; round < 10 && batched.size() < mix.size(); ++round) {
    auto got = take_many(*b, 4, {"many"});
    ASSERT_FALSE(got.empty()) << "messages are queued, so a reserve gets at least one";
    EXPECT_LE(got.size(), 4u) << "never more than asked for";
    for (const auto& d : got) {
      EXPECT_EQ(d.queue, "many");
      batched.push_back(d.message);
      ASSERT_TRUE(b->ack(d).ok());
    }
  }
  EXPECT_EQ(singly.size(), mix.size());
  EXPECT_EQ(batched, singly) << "a batch keeps the take order (leaves, then narrow ranges)";
  EXPECT_TRUE(take_many(*b, 4, {"many"}).empty());
  EXPECT_EQ(pending(*b, {"one", "many"}), 0u);
}

TEST_P(Contract, ReserveManyOfZeroTakesNothing) {
  auto b = backend_->broker();
  ASSERT_TRUE(b->publish("q", {msg(1)}).ok());
  EXPECT_TRUE(take_many(*b, 0).empty());
  auto d = take(*b);
  ASSERT_TRUE(d.has_value()) << "still queued";
  EXPECT_EQ(d->message, msg(1));
}

TEST_P(Contract, EachOfABatchIsLeasedRenewedAndReleasedOnItsOwn) {
  auto a = backend_->broker("a");
  auto b = backend_->broker("b");
  ASSERT_TRUE(a->publish("q", {msg(1), msg(2), msg(3)}).ok());
  std::vector<Delivery> held;
  while (held.size() < 3) {
    auto got = take_many(*a, 3 - held.size());
    ASSERT_FALSE(got.empty());
    held.insert(held.end(), got.begin(), got.end());
  }
  EXPECT_FALSE(take(*b).has_value()) << "every message of the batch is held";
  EXPECT_EQ(pending(*a, {"q"}), 3u) << "reserved counts as pending";
  if (backend_->has_leases()) {
    for (int i = 0; i < 4; ++i) {  // 4 × lease/2: twice the lease in all
      std::this_thread::sleep_for(backend_->lease() / 2);
      for (const auto& d : held) ASSERT_TRUE(a->extend_lease(d).ok());
      EXPECT_FALSE(take(*b).has_value()) << "every lease of the batch renewed, round " << i;
    }
  }
  // The one this worker will not start goes back; the others stay held.
  ASSERT_TRUE(a->release(held[2]).ok());
  auto back = take(*b);
  ASSERT_TRUE(back.has_value()) << "a released message of a batch is queued again";
  EXPECT_EQ(back->message, msg(3));
  EXPECT_FALSE(take(*b).has_value());
  for (std::size_t i = 0; i < 2; ++i) ASSERT_TRUE(a->ack(held[i]).ok());
  ASSERT_TRUE(b->ack(*back).ok());
  EXPECT_EQ(pending(*a, {"q"}), 0u);
}

TEST_P(Contract, BatchesOfTwoLiveConsumersNeverShareAMessage) {
  auto a = backend_->broker("a");
  auto b = backend_->broker("b");
  std::vector<TaskMessage> msgs;
  for (std::uint32_t i = 0; i < 40; ++i) msgs.push_back(msg(i));
  ASSERT_TRUE(a->publish("q", msgs).ok());
  std::multiset<std::uint32_t> seen;
  std::mutex mu;
  auto drain = [&](Broker& broker) {
    while (true) {
      auto got = broker.reserve_many({"q"}, 3, milliseconds(0));
      ASSERT_TRUE(got.ok()) << got.error().message;
      if (got->empty()) return;
      for (const auto& d : *got) {
        {
          std::lock_guard lock(mu);
          seen.insert(d.message.instance.v);
        }
        ASSERT_TRUE(broker.ack(d).ok());
      }
    }
  };
  std::thread ta([&] { drain(*a); });
  std::thread tb([&] { drain(*b); });
  ta.join();
  tb.join();
  EXPECT_EQ(seen.size(), msgs.size());
  for (std::uint32_t i = 0; i < 40; ++i) EXPECT_EQ(seen.count(i), 1u) << "message " << i;
}

TEST_P(Contract, FinishCommitsPublishesTheFollowUpsAndAcks) {
  auto b = backend_->broker();
  auto store = backend_->store({3, 3});
  ASSERT_TRUE(b->publish("q", {msg(0, 1)}).ok());
  auto d = take(*b);
  ASSERT_TRUE(d.has_value());
  FinishRequest r;
  r.instance = InstanceId{0};
  r.sample = 1;
  r.seconds = 0.5;
  r.follow_ups = {{"next", {msg(1, 1)}}};
  r.hold_ack_at_zero = true;
  auto f = b->finish(*d, r, *store);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_TRUE(f->commit.newly_done);
  EXPECT_EQ(f->commit.remaining, 2u);
  EXPECT_TRUE(f->acked) << "not the last sample: acked at once";
  EXPECT_EQ(pending(*b, {"q"}), 0u) << "acked";
  auto done = store->is_done(InstanceId{0}, 1);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(*done);
  auto next = take(*b, {"next"});
  ASSERT_TRUE(next.has_value()) << "the follow-up was published";
  EXPECT_EQ(next->message, msg(1, 1));
  ASSERT_TRUE(b->ack(*next).ok());

  // The same sample finished again (a duplicate run): not new, nothing published twice.
  ASSERT_TRUE(b->publish("q", {msg(0, 1)}).ok());
  auto again = take(*b);
  ASSERT_TRUE(again.has_value());
  auto f2 = b->finish(*again, r, *store);
  ASSERT_TRUE(f2.ok()) << f2.error().message;
  EXPECT_FALSE(f2->commit.newly_done);
  EXPECT_EQ(f2->commit.remaining, 2u) << "a duplicate does not count down";
  EXPECT_TRUE(f2->acked);
  EXPECT_FALSE(take(*b, {"next"}).has_value()) << "a duplicate publishes no follow-up";
  EXPECT_EQ(pending(*b, {"q", "next"}), 0u);
}

TEST_P(Contract, FinishHoldsTheAckWhenTheInstanceCompletes) {
  auto b = backend_->broker();
  auto store = backend_->store({1, 1});
  ASSERT_TRUE(b->publish("q", {msg(0, 0)}).ok());
  auto d = take(*b);
  ASSERT_TRUE(d.has_value());
  FinishRequest r;
  r.instance = InstanceId{0};
  r.sample = 0;
  r.outcome = Outcome::kSoftFail;
  r.hold_ack_at_zero = true;
  auto f = b->finish(*d, r, *store);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_TRUE(f->commit.newly_done);
  EXPECT_EQ(f->commit.remaining, 0u);
  EXPECT_FALSE(f->acked) << "held: the caller releases the whole dependents first";
  EXPECT_EQ(pending(*b, {"q"}), 1u) << "still reserved";
  auto complete = store->is_complete(InstanceId{0});
  ASSERT_TRUE(complete.ok());
  EXPECT_TRUE(*complete);
  auto progress = store->progress();
  ASSERT_TRUE(progress.ok());
  EXPECT_EQ((*progress)[0].failed, 1u) << "the outcome is recorded";
  ASSERT_TRUE(b->ack(*d).ok());
  EXPECT_EQ(pending(*b, {"q"}), 0u);

  // Without hold the last sample's finish acks too.
  ASSERT_TRUE(b->publish("q", {msg(1, 0)}).ok());
  auto d2 = take(*b);
  ASSERT_TRUE(d2.has_value());
  r.instance = InstanceId{1};
  r.hold_ack_at_zero = false;
  auto f2 = b->finish(*d2, r, *store);
  ASSERT_TRUE(f2.ok()) << f2.error().message;
  EXPECT_EQ(f2->commit.remaining, 0u);
  EXPECT_TRUE(f2->acked);
  EXPECT_EQ(pending(*b, {"q"}), 0u);
}

// Broker::finish_many: each leaf answered as `finish` would one after the other, whether the
// broker does them in one call (Redis: counters once per instance, acks once per Stream) or
// one by one (the default).
TEST_P(Contract, FinishManyAnswersAsFinishesOneAfterTheOther) {
  auto b = backend_->broker();
  auto store = backend_->store({3, 2});
  ASSERT_TRUE(b->publish("q", {msg(0, 0), msg(0, 1), msg(1, 0), msg(0, 0), msg(0, 2), msg(1, 1)})
                  .ok());
  std::vector<Delivery> got;
  while (got.size() < 6) {
    auto more = take_many(*b, 6 - got.size());
    ASSERT_FALSE(more.empty());
    got.insert(got.end(), more.begin(), more.end());
  }
  std::vector<FinishRequest> reqs(6);
  for (std::size_t i = 0; i < 6; ++i) {
    reqs[i].instance = got[i].message.instance;
    reqs[i].sample = got[i].message.lo;
    reqs[i].seconds = 0.25;
    reqs[i].hold_ack_at_zero = true;
  }
  reqs[0].follow_ups = {{"next", {msg(5, 0)}}};
  reqs[3].follow_ups = reqs[0].follow_ups;  // the duplicate of sample 0: not published again
  reqs[1].outcome = Outcome::kSoftFail;
  reqs[5].hold_ack_at_zero = false;
  std::vector<Broker::Finishing> items;
  for (std::size_t i = 0; i < 6; ++i) items.push_back({&got[i], &reqs[i]});
  auto rs = b->finish_many(items, *store);
  ASSERT_EQ(rs.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) ASSERT_TRUE(rs[i].ok()) << i << ": " << rs[i].error().message;
  // {newly done, remaining, acked} of each, in order.
  const std::vector<std::tuple<bool, std::uint64_t, bool>> want{
      {true, 2, true}, {true, 1, true}, {true, 1, true},
      {false, 1, true}, {true, 0, false}, {true, 0, true}};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(rs[i]->commit.newly_done, std::get<0>(want[i])) << "leaf " << i;
    EXPECT_EQ(rs[i]->commit.remaining, std::get<1>(want[i])) << "leaf " << i;
    EXPECT_EQ(rs[i]->acked, std::get<2>(want[i])) << "leaf " << i;
  }
  EXPECT_EQ(pending(*b, {"q"}), 1u) << "only the held ack is left";
  // Acked before the next reserve: a reserve takes over what is held past the lease (200 ms
  // here, which a loaded machine can spend between two calls of this test).
  ASSERT_TRUE(b->ack(got[4]).ok());
  auto progress = store->progress();
  ASSERT_TRUE(progress.ok());
  EXPECT_EQ((*progress)[0].failed, 1u);
  EXPECT_EQ((*progress)[0].done, 3u);
  EXPECT_EQ((*progress)[1].done, 2u);
  EXPECT_NEAR((*progress)[0].seconds, 0.75, 1e-9) << "the new commits' seconds, summed";
  auto next = take(*b, {"next"});
  ASSERT_TRUE(next.has_value()) << "the follow-up was published";
  EXPECT_EQ(next->message, msg(5, 0));
  ASSERT_TRUE(b->ack(*next).ok());
  EXPECT_FALSE(take(*b, {"next"}).has_value()) << "published once";
  EXPECT_EQ(pending(*b, {"q", "next"}), 0u);

  // Sent again (its reply lost): every commit a duplicate, nothing published, acks no-ops.
  auto again = b->finish_many(items, *store);
  ASSERT_EQ(again.size(), 6u);
  for (const auto& r : again) {
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->commit.newly_done);
  }
  EXPECT_FALSE(take(*b, {"next"}).has_value());
  EXPECT_EQ(pending(*b, {"q", "next"}), 0u);
}

TEST_P(Contract, FinishManyRefusesALeafOfAnUnknownInstanceAlone) {
  auto b = backend_->broker();
  auto store = backend_->store({2});
  ASSERT_TRUE(b->publish("q", {msg(0, 0), msg(7, 0), msg(0, 1)}).ok());
  std::vector<Delivery> got;
  while (got.size() < 3) {
    auto more = take_many(*b, 3 - got.size());
    ASSERT_FALSE(more.empty());
    got.insert(got.end(), more.begin(), more.end());
  }
  std::vector<FinishRequest> reqs(3);
  std::vector<Broker::Finishing> items;
  for (std::size_t i = 0; i < 3; ++i) {
    reqs[i].instance = got[i].message.instance;
    reqs[i].sample = got[i].message.lo;
    items.push_back({&got[i], &reqs[i]});
  }
  auto rs = b->finish_many(items, *store);
  ASSERT_EQ(rs.size(), 3u);
  ASSERT_TRUE(rs[0].ok()) << rs[0].error().message;
  EXPECT_FALSE(rs[1].ok()) << "instance 7 does not exist";
  ASSERT_TRUE(rs[2].ok()) << rs[2].error().message;
  EXPECT_EQ(rs[2]->commit.remaining, 0u);
  EXPECT_EQ(pending(*b, {"q"}), 1u) << "the refused leaf stays reserved";
  ASSERT_TRUE(b->release(got[1]).ok());
}

// Delivery::sample_done, the done check a broker may answer in the take: never wrong.
TEST_P(Contract, ADeliveredLeafNeverCarriesAWrongDoneBit) {
  auto b = backend_->broker();
  auto store = backend_->store({4});
  ASSERT_TRUE(store->commit(InstanceId{0}, 1, Outcome::kSuccess, 0).ok());
  ASSERT_TRUE(b->publish("q", {msg(0, 1), msg(0, 2), range(0, 0, 4)}).ok());
  std::vector<Delivery> got;
  while (got.size() < 3) {
    auto more = take_many(*b, 3 - got.size());
    ASSERT_FALSE(more.empty());
    got.insert(got.end(), more.begin(), more.end());
  }
  ASSERT_EQ(got[0].message, msg(0, 1));
  ASSERT_EQ(got[1].message, msg(0, 2));
  ASSERT_EQ(got[2].message, range(0, 0, 4));
  EXPECT_NE(got[0].sample_done, 0) << "sample 1 is done: known done, or not known";
  EXPECT_NE(got[1].sample_done, 1) << "sample 2 is not done";
  EXPECT_EQ(got[2].sample_done, -1) << "a range has no one sample";
  if (GetParam() == "redis") {  // the take script reads the bit
    EXPECT_EQ(got[0].sample_done, 1);
    EXPECT_EQ(got[1].sample_done, 0);
  }
  for (const auto& d : got) ASSERT_TRUE(b->ack(d).ok());
}

}  // namespace
}  // namespace merlin::testing
