// LocalStateStore: set-if-unset commits, remaining counts, release claims, progress, the sink.
#include "adapters/broker/local/local_state_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace merlin {
namespace {

const InstanceId kI0{0}, kI1{1};

TEST(LocalStateStore, CommitMarksTheSampleDoneAndCountsDown) {
  LocalStateStore store({3, 1});
  auto c = store.commit(kI0, 1, Outcome::kSuccess, 2.0);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->newly_done);
  EXPECT_EQ(c->remaining, 2u);
  EXPECT_TRUE(*store.is_done(kI0, 1));
  EXPECT_FALSE(*store.is_done(kI0, 0));
  EXPECT_FALSE(*store.is_complete(kI0));
  EXPECT_FALSE(*store.is_done(kI1, 1)) << "instances are independent";
}

TEST(LocalStateStore, DuplicateCommitIsNotNewAndDoesNotCountTwice) {
  LocalStateStore store({3});
  ASSERT_TRUE(store.commit(kI0, 1, Outcome::kSuccess, 2.0).ok());
  auto again = store.commit(kI0, 1, Outcome::kSoftFail, 5.0);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->newly_done);
  EXPECT_EQ(again->remaining, 2u);
  auto p = store.progress();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[0].done, 1u);
  EXPECT_EQ((*p)[0].failed, 0u) << "the first outcome stands";
  EXPECT_DOUBLE_EQ((*p)[0].seconds, 2.0);
}

TEST(LocalStateStore, LastCommitCompletesTheInstance) {
  LocalStateStore store({2});
  EXPECT_EQ(store.commit(kI0, 0, Outcome::kSuccess, 0)->remaining, 1u);
  auto last = store.commit(kI0, 1, Outcome::kSuccess, 0);
  EXPECT_TRUE(last->newly_done);
  EXPECT_EQ(last->remaining, 0u);
  EXPECT_TRUE(*store.is_complete(kI0));
}

TEST(LocalStateStore, ClaimReleaseIsTrueOnlyForTheFirstCaller) {
  LocalStateStore store({1, 1});
  EXPECT_TRUE(*store.claim_release(kI0));
  EXPECT_FALSE(*store.claim_release(kI0));
  EXPECT_TRUE(*store.claim_release(kI1));
}

TEST(LocalStateStore, ProgressCountsFailuresButNotStops) {
  LocalStateStore store({5});
  ASSERT_TRUE(store.commit(kI0, 0, Outcome::kSuccess, 1.0).ok());
  ASSERT_TRUE(store.commit(kI0, 1, Outcome::kSoftFail, 1.0).ok());
  ASSERT_TRUE(store.commit(kI0, 2, Outcome::kHardFail, 1.0).ok());
  ASSERT_TRUE(store.commit(kI0, 3, Outcome::kStopped, 1.5).ok());
  auto p = store.progress();
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ((*p)[0].total, 5u);
  EXPECT_EQ((*p)[0].done, 4u);
  EXPECT_EQ((*p)[0].failed, 2u);
  EXPECT_DOUBLE_EQ((*p)[0].seconds, 4.5);
}

TEST(LocalStateStore, SinkSeesEachNewCommitOnce) {
  std::vector<std::pair<std::uint32_t, SampleId>> seen;
  LocalStateStore store({3}, [&](InstanceId i, SampleId s, Outcome, double) -> Result<void> {
    seen.emplace_back(i.v, s);
    return ok();
  });
  ASSERT_TRUE(store.commit(kI0, 2, Outcome::kSuccess, 0).ok());
  ASSERT_TRUE(store.commit(kI0, 2, Outcome::kSuccess, 0).ok());
  ASSERT_TRUE(store.commit(kI0, 0, Outcome::kSuccess, 0).ok());
  EXPECT_EQ(seen, (std::vector<std::pair<std::uint32_t, SampleId>>{{0, 2}, {0, 0}}));
}

TEST(LocalStateStore, SinkErrorFailsTheCommitAndLeavesTheSampleUndone) {
  LocalStateStore store({3}, [](InstanceId, SampleId, Outcome, double) -> Result<void> {
    return Error::runtime("disk full");
  });
  auto c = store.commit(kI0, 1, Outcome::kSuccess, 0);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kRuntime);
  EXPECT_EQ(c.error().message, "disk full");
  EXPECT_FALSE(*store.is_done(kI0, 1));
}

TEST(LocalStateStore, RestoreRecordsWithoutTheSink) {
  int calls = 0;
  LocalStateStore store({2}, [&](InstanceId, SampleId, Outcome, double) -> Result<void> {
    ++calls;
    return ok();
  });
  store.restore(kI0, 0, Outcome::kSuccess, 1.0);
  store.restore(kI0, 0, Outcome::kSuccess, 1.0);
  store.restore(InstanceId{7}, 0, Outcome::kSuccess, 1.0);  // out of range: ignored
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(*store.is_done(kI0, 0));
  auto c = store.commit(kI0, 0, Outcome::kSuccess, 0);
  EXPECT_FALSE(c->newly_done);
  EXPECT_EQ(store.progress()->at(0).done, 1u);
}

TEST(LocalStateStore, ConcurrentCommitsCountEachSampleOnce) {
  constexpr SampleId kSamples = 2000;
  constexpr int kThreads = 4;
  LocalStateStore store({kSamples});
  std::atomic<int> newly{0}, reached_zero{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (SampleId i = 0; i < kSamples; ++i) {
        SampleId s = (i * 7 + static_cast<SampleId>(t) * 13) % kSamples;  // differing orders
        auto c = store.commit(kI0, s, Outcome::kSuccess, 0);
        if (c.ok() && c->newly_done) {
          ++newly;
          if (c->remaining == 0) ++reached_zero;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(newly.load(), static_cast<int>(kSamples));
  EXPECT_EQ(reached_zero.load(), 1) << "exactly one commit completes the instance";
  EXPECT_TRUE(*store.is_complete(kI0));
}

// Fan-out counts (docs/fanout.md).
TEST(LocalStateStore, SetCountCallsTheCountSinkOnceBeforeTheCountIsUsed) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> sunk;
  LocalStateStore store({kCountUnknown}, nullptr, [&](InstanceId i, std::uint64_t n) {
    sunk.emplace_back(i.v, n);
    return ok();
  });
  EXPECT_FALSE(store.commit(kI0, 0, Outcome::kSuccess, 0).ok())
      << "no commit before the count is recorded";
  EXPECT_EQ(*store.set_count(kI0, 4), 4u);
  EXPECT_EQ(*store.set_count(kI0, 6), 4u);
  ASSERT_EQ(sunk.size(), 1u) << "journaled once";
  EXPECT_EQ(sunk[0].second, 4u);
}

TEST(LocalStateStore, CountSinkErrorLeavesTheCountUnknown) {
  LocalStateStore store({kCountUnknown}, nullptr, [](InstanceId, std::uint64_t) -> Result<void> {
    return Error::runtime("disk full");
  });
  EXPECT_FALSE(store.set_count(kI0, 4).ok());
  EXPECT_FALSE((*store.progress())[0].count_known);
}

TEST(LocalStateStore, RestoredCountThatDiffersStartsTheInstanceAfresh) {
  LocalStateStore store({kCountUnknown});
  store.restore_count(kI0, 1);  // a failed expansion: one failing task
  store.restore(kI0, 0, Outcome::kSoftFail, 0);
  store.restore_count(kI0, 3);  // expanded again after a restart
  store.restore(kI0, 2, Outcome::kSuccess, 0);
  auto p = (*store.progress())[0];
  EXPECT_EQ(p.total, 3u);
  EXPECT_EQ(p.done, 1u);
  EXPECT_EQ(p.failed, 0u) << "the old expansion's failure is forgotten";
  EXPECT_FALSE(*store.is_done(kI0, 0));
  store.restore_count(kI0, 3);  // the same count again changes nothing
  EXPECT_TRUE(*store.is_done(kI0, 2));
}

TEST(LocalStateStore, AResetMakesFailedSamplesUnfinishedAndKeepsTheRest) {
  LocalStateStore store({4, 2});
  ASSERT_TRUE(store.commit(InstanceId{0}, 0, Outcome::kSuccess, 1).ok());
  ASSERT_TRUE(store.commit(InstanceId{0}, 1, Outcome::kSoftFail, 1).ok());
  ASSERT_TRUE(store.commit(InstanceId{0}, 2, Outcome::kStopped, 1).ok());
  ASSERT_TRUE(store.commit(InstanceId{1}, 1, Outcome::kHardFail, 1).ok());
  EXPECT_EQ(store.reset_failed(), 2u);
  EXPECT_TRUE(*store.is_done(InstanceId{0}, 0));
  EXPECT_FALSE(*store.is_done(InstanceId{0}, 1));
  EXPECT_TRUE(*store.is_done(InstanceId{0}, 2)) << "a stop is finished, not failed";
  EXPECT_FALSE(*store.is_done(InstanceId{1}, 1));
  auto p = store.progress();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[0].done, 2u);
  EXPECT_EQ((*p)[0].failed, 0u);
  EXPECT_EQ((*p)[1].done, 0u);
  EXPECT_EQ(store.reset_failed(), 0u) << "nothing failed since";
}

TEST(LocalStateStore, ClearedReleasesAreClaimedAgain) {
  LocalStateStore store({1});
  ASSERT_TRUE(*store.claim_release(InstanceId{0}));
  ASSERT_FALSE(*store.claim_release(InstanceId{0}));
  store.clear_releases();
  EXPECT_TRUE(*store.claim_release(InstanceId{0}));
}

}  // namespace
}  // namespace merlin
