// A tuned instance's commits on Redis (kTuneCommit) follow the RungBook's rules exactly: the
// same results in the same order give the same promotions, the same tasks skipped, the same
// remaining counts; duplicates change nothing; pending promotions and standings read back.
#include <cmath>
#include <random>
#include <set>

#include "adapters/broker/redis/redis_state_store.h"
#include "merlin/core/tune/rung_book.h"
#include "tests/fakes/redis_progress.h"
#include "tests/unit/redis/redis_test_server.h"

namespace merlin::testing {
namespace {

tune::TuneShape shape_for(std::uint32_t trials, double eta, bool hyperband, bool maximize) {
  spec::TuneSpec s;
  s.method = hyperband ? spec::TuneMethod::kHyperband : spec::TuneMethod::kAsha;
  s.trials = trials;
  s.budget = spec::TuneBudget{"EPOCHS", 1, 27, eta, {}};
  s.metric.maximize = maximize;
  return tune::shape_of(s);
}

class RedisTune : public RedisFixture {};

TEST_F(RedisTune, CommitsFollowTheRungBook) {
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    const auto shape = shape_for(1 + rng() % 30, 2 + rng() % 2, seed % 4 == 0, seed % 3 == 0);
    settings_.study_key = "tune" + std::to_string(seed);
    RedisStateStore store(settings_);
    ASSERT_TRUE(init_progress(store.settings(), {shape.tasks()}).ok());
    const InstanceId id{0};
    store.set_tuned(id, shape);
    tune::RungBook book(shape);
    std::uint64_t remaining = shape.tasks() - book.skipped_at_start().size();
    std::vector<std::uint64_t> queue;
    for (std::uint32_t t = 0; t < shape.trials; ++t)
      queue.push_back(shape.task(t, shape.start_rung(t)));
    while (!queue.empty()) {
      const std::size_t pick = rng() % queue.size();
      const std::uint64_t task = queue[pick];
      queue.erase(queue.begin() + static_cast<long>(pick));
      const double v = rng() % 9 == 0 ? NAN : std::uniform_real_distribution<double>(-5, 5)(rng);
      const auto want = book.record(task, v);
      auto got = store.commit_trial(id, task, std::isnan(v) ? Outcome::kSoftFail : Outcome::kSuccess,
                                    0.5, v);
      ASSERT_TRUE(got.ok()) << got.error().message;
      ASSERT_TRUE(got->newly_done);
      EXPECT_EQ(got->promoted, want.promoted) << "seed " << seed << " task " << task;
      remaining -= 1 + want.skipped.size();
      EXPECT_EQ(got->remaining, remaining) << "seed " << seed << " task " << task;
      auto again = store.commit_trial(id, task, Outcome::kSuccess, 0.5, -100);
      ASSERT_TRUE(again.ok());
      EXPECT_FALSE(again->newly_done);
      EXPECT_TRUE(again->promoted.empty());
      auto pending = store.pending_promotions(id);
      ASSERT_TRUE(pending.ok());
      for (auto p : want.promoted) queue.push_back(p);
      std::vector<std::uint64_t> left = queue;
      std::sort(left.begin(), left.end());
      std::vector<std::uint64_t> promoted_left;
      for (auto q : left)
        if (shape.rung_of(q) > shape.start_rung(shape.trial_of(q))) promoted_left.push_back(q);
      EXPECT_EQ(*pending, promoted_left) << "seed " << seed;
    }
    EXPECT_EQ(remaining, 0u);
    EXPECT_TRUE(*store.is_complete(id));
    auto standings = store.standings(id);
    ASSERT_TRUE(standings.ok());
    const auto expect = book.standings();
    ASSERT_EQ(standings->size(), expect.size());
    for (std::size_t t = 0; t < expect.size(); ++t) {
      EXPECT_EQ((*standings)[t].rung, expect[t].rung) << "trial " << t;
      EXPECT_EQ((*standings)[t].stopped, expect[t].stopped) << "trial " << t;
      if (!std::isnan(expect[t].value)) EXPECT_EQ((*standings)[t].value, expect[t].value);
    }
  }
}

TEST_F(RedisTune, APlainCommitOfATunedTaskIsAResultlessTrial) {
  const auto shape = shape_for(3, 3, false, false);
  RedisStateStore store(settings_);
  ASSERT_TRUE(init_progress(store.settings(), {shape.tasks()}).ok());
  store.set_tuned(InstanceId{0}, shape);
  ASSERT_TRUE(store.commit(InstanceId{0}, 0, Outcome::kSoftFail, 0).ok());
  ASSERT_TRUE(store.commit_trial(InstanceId{0}, 1, Outcome::kSuccess, 0, 2.0).ok());
  auto last = store.commit_trial(InstanceId{0}, 2, Outcome::kSuccess, 0, 1.0);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->promoted, (std::vector<SampleId>{shape.task(2, 1)}));
}

}  // namespace
}  // namespace merlin::testing
