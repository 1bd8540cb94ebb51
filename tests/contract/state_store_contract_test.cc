// The StateStore contract: set-if-unset commits, counts, release claims, progress.
#include <atomic>
#include <thread>

#include "tests/contract/contract_fixture.h"

namespace merlin::testing {
namespace {

const InstanceId kI0{0}, kI1{1};

TEST_P(Contract, CommitMarksTheSampleDoneAndCountsDown) {
  auto s = backend_->store({3, 1});
  ASSERT_TRUE(s);
  auto c = s->commit(kI0, 1, Outcome::kSuccess, 2.0);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->newly_done);
  EXPECT_EQ(c->remaining, 2u);
  EXPECT_TRUE(*s->is_done(kI0, 1));
  EXPECT_FALSE(*s->is_done(kI0, 0));
  EXPECT_FALSE(*s->is_complete(kI0));
  EXPECT_FALSE(*s->is_done(kI1, 1)) << "instances are independent";
}

TEST_P(Contract, DuplicateCommitIsNotNewAndDoesNotCountTwice) {
  auto s = backend_->store({3});
  ASSERT_TRUE(s->commit(kI0, 1, Outcome::kSuccess, 2.0).ok());
  auto again = s->commit(kI0, 1, Outcome::kSoftFail, 5.0);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->newly_done);
  EXPECT_EQ(again->remaining, 2u) << "unchanged";
  auto p = s->progress();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[0].done, 1u);
  EXPECT_EQ((*p)[0].failed, 0u) << "the first outcome stands";
  EXPECT_DOUBLE_EQ((*p)[0].seconds, 2.0);
}

TEST_P(Contract, LastCommitCompletesTheInstance) {
  auto s = backend_->store({2});
  EXPECT_EQ(s->commit(kI0, 0, Outcome::kSuccess, 0)->remaining, 1u);
  auto last = s->commit(kI0, 1, Outcome::kSuccess, 0);
  EXPECT_TRUE(last->newly_done);
  EXPECT_EQ(last->remaining, 0u);
  EXPECT_TRUE(*s->is_complete(kI0));
}

TEST_P(Contract, ProgressCountsFailuresButNotStops) {
  auto s = backend_->store({5});
  (void)s->commit(kI0, 0, Outcome::kSuccess, 1.0);
  (void)s->commit(kI0, 1, Outcome::kSoftFail, 1.0);
  (void)s->commit(kI0, 2, Outcome::kHardFail, 1.0);
  (void)s->commit(kI0, 3, Outcome::kStopped, 1.5);
  auto p = s->progress();
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ((*p)[0].total, 5u);
  EXPECT_EQ((*p)[0].done, 4u);
  EXPECT_EQ((*p)[0].failed, 2u);
  EXPECT_DOUBLE_EQ((*p)[0].seconds, 4.5);
}

TEST_P(Contract, ClaimReleaseIsTrueForExactlyOneOfManyCallers) {
  auto s = backend_->store({1, 1});
  std::atomic<int> winners{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        auto c = s->claim_release(kI0);
        if (c.ok() && *c) ++winners;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_TRUE(*s->claim_release(kI1)) << "instances are independent";
}

TEST_P(Contract, ExactlyOneOfFourConcurrentCommittersReachesZero) {
  constexpr SampleId kSamples = 500;
  auto s = backend_->store({kSamples});
  std::atomic<int> newly{0}, reached_zero{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (SampleId i = 0; i < kSamples; ++i) {
        SampleId x = (i * 7 + static_cast<SampleId>(t) * 13) % kSamples;  // differing orders
        auto c = s->commit(kI0, x, Outcome::kSuccess, 0);
        if (!c.ok()) ++errors;
        if (c.ok() && c->newly_done) {
          ++newly;
          if (c->remaining == 0) ++reached_zero;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(newly.load(), static_cast<int>(kSamples));
  EXPECT_EQ(reached_zero.load(), 1) << "exactly one commit completes the instance";
  EXPECT_TRUE(*s->is_complete(kI0));
}

// Fan-out counts (docs/fanout.md): unknown until the release records one, first count wins.
TEST_P(Contract, UnknownCountIsNotCompleteUntilSetAndTheFirstCountWins) {
  auto s = backend_->store({2, kCountUnknown});
  ASSERT_TRUE(s);
  EXPECT_FALSE(*s->is_complete(kI1)) << "an instance of unknown count is not complete";
  auto p = s->progress();
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->size(), 2u);
  EXPECT_TRUE((*p)[0].count_known);
  EXPECT_FALSE((*p)[1].count_known);
  EXPECT_EQ((*p)[1].expected(), 1u) << "at least one task is still to come";

  auto first = s->set_count(kI1, 3);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, 3u);
  auto again = s->set_count(kI1, 7);  // a redelivered or restarted release
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 3u) << "the recorded count stands";
  EXPECT_EQ(*s->set_count(kI0, 9), 2u) << "a fixed count is not changed";

  p = s->progress();
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE((*p)[1].count_known);
  EXPECT_EQ((*p)[1].total, 3u);
  EXPECT_EQ((*p)[1].done, 0u);
  EXPECT_FALSE(*s->is_complete(kI1));
  for (SampleId x = 0; x < 3; ++x) ASSERT_TRUE(s->commit(kI1, x, Outcome::kSuccess, 0).ok());
  EXPECT_TRUE(*s->is_complete(kI1));
}

TEST_P(Contract, ForgottenCountIsUnknownAgainWithNoProgress) {
  auto s = backend_->store({kCountUnknown});
  ASSERT_TRUE(s);
  ASSERT_EQ(*s->set_count(kI0, 1), 1u);  // a failed expansion: one task
  ASSERT_TRUE(s->commit(kI0, 0, Outcome::kSoftFail, 0).ok());
  ASSERT_TRUE(s->forget_count(kI0).ok());
  auto p = s->progress();
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE((*p)[0].count_known);
  EXPECT_EQ((*p)[0].failed, 0u);
  EXPECT_FALSE(*s->is_complete(kI0));
  EXPECT_FALSE(*s->is_done(kI0, 0));
  EXPECT_EQ(*s->set_count(kI0, 3), 3u) << "expanded again, with the fixed file's rows";
}

TEST_P(Contract, ConcurrentSetCountsAgreeOnOneCount) {
  auto s = backend_->store({kCountUnknown});
  ASSERT_TRUE(s);
  std::vector<std::uint64_t> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      auto r = s->set_count(kI0, 10 + static_cast<std::uint64_t>(t));
      seen[t] = r.ok() ? *r : 0;
    });
  for (auto& t : threads) t.join();
  for (auto n : seen) EXPECT_EQ(n, seen[0]) << "every caller gets the one recorded count";
  EXPECT_GE(seen[0], 10u);
  EXPECT_EQ((*s->progress())[0].total, seen[0]);
}

}  // namespace
}  // namespace merlin::testing
