#include "merlin/core/tune/rung_book.h"

#include <gtest/gtest.h>

#include <set>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <random>

#include "merlin/core/tune/trial_config.h"
#include "merlin/core/tune/tune_shape.h"

namespace merlin::tune {
namespace {

spec::TuneSpec asha(std::uint32_t trials, double lo, double hi, double eta) {
  spec::TuneSpec s;
  s.method = spec::TuneMethod::kAsha;
  s.trials = trials;
  s.budget = spec::TuneBudget{"EPOCHS", lo, hi, eta, {}};
  s.space.push_back({"X", spec::TuneDimension::Kind::kUniform, 0, 1, {}, {}});
  return s;
}

TEST(TuneShape, RungsAreMinTimesEtaThenMax) {
  auto s = shape_of(asha(9, 1, 27, 3));
  EXPECT_EQ(s.rungs, 4u);
  EXPECT_EQ(s.budgets, (std::vector<double>{1, 3, 9, 27}));
  EXPECT_EQ(s.budget_text(3), "27");
  auto t = shape_of(asha(9, 1, 20, 3));
  EXPECT_EQ(t.budgets, (std::vector<double>{1, 3, 9, 20}));
  auto u = shape_of(asha(9, 0.5, 2, 2));
  EXPECT_EQ(u.budget_text(0), "0.5");
  EXPECT_EQ(u.rungs, 3u);
  auto r = asha(5, 1, 27, 3);
  r.method = spec::TuneMethod::kRandom;
  EXPECT_EQ(shape_of(r).rungs, 1u);
  EXPECT_EQ(shape_of(r).budget_text(0), "27");
  EXPECT_EQ(shape_of(r).tasks(), 5u);
}

TEST(TuneShape, HyperbandGivesEarlierBracketsMoreTrials) {
  auto spec = asha(40, 1, 27, 3);
  spec.method = spec::TuneMethod::kHyperband;
  auto s = shape_of(spec);
  ASSERT_EQ(s.brackets(), 4u);
  std::uint32_t sum = 0;
  for (std::uint32_t b = 0; b < 4; ++b) {
    sum += s.bracket_size(b);
    if (b > 0) EXPECT_GE(s.bracket_size(b - 1), s.bracket_size(b));
    EXPECT_GE(s.bracket_size(b), 1u);
  }
  EXPECT_EQ(sum, 40u);
  EXPECT_EQ(s.start_rung(0), 0u);
  EXPECT_EQ(s.start_rung(39), 3u);
  RungBook book(s);
  // Bracket 3's trials start at the last rung: their three lower tasks are done from the start.
  EXPECT_EQ(book.skipped_at_start().size(),
            std::size_t{s.bracket_size(1)} * 1 + s.bracket_size(2) * 2 + s.bracket_size(3) * 3);
}

TEST(RungBook, NineTrialsEtaThree) {
  auto s = shape_of(asha(9, 1, 9, 3));  // rungs 1, 3, 9
  RungBook book(s);
  // Trial t's result is t: lower is better.
  auto d0 = book.record(s.task(0, 0), 0);
  EXPECT_TRUE(d0.newly);
  EXPECT_TRUE(d0.promoted.empty());  // floor(1/3) = 0
  book.record(s.task(1, 0), 1);
  auto d2 = book.record(s.task(2, 0), 2);
  EXPECT_EQ(d2.promoted, (std::vector<std::uint64_t>{s.task(0, 1)}));  // at once, async
  for (std::uint32_t t = 3; t < 8; ++t) book.record(s.task(t, 0), t);
  EXPECT_EQ(book.promoted_pending(), (std::vector<std::uint64_t>{s.task(0, 1), s.task(1, 1)}));
  auto last = book.record(s.task(8, 0), 8);
  EXPECT_EQ(last.promoted, (std::vector<std::uint64_t>{s.task(2, 1)}));
  // Rung 0 closed: trials 3..8 stop, their rung 1 and 2 tasks are skipped.
  EXPECT_EQ(last.skipped.size(), 12u);
  EXPECT_FALSE(book.record(s.task(8, 0), -5).newly);  // a second result changes nothing
  book.record(s.task(2, 1), 0.2);
  book.record(s.task(0, 1), 0.5);
  auto r1 = book.record(s.task(1, 1), 0.1);
  EXPECT_EQ(r1.promoted, (std::vector<std::uint64_t>{s.task(1, 2)}));
  EXPECT_EQ(r1.skipped, (std::vector<std::uint64_t>{s.task(0, 2), s.task(2, 2)}));
  EXPECT_FALSE(book.finished());
  auto top = book.record(s.task(1, 2), 0.05);
  EXPECT_TRUE(top.promoted.empty());
  EXPECT_TRUE(book.finished());
  ASSERT_TRUE(book.best());
  EXPECT_EQ(book.best()->trial, 1u);
  EXPECT_EQ(book.best()->rung, 2);
  EXPECT_EQ(book.best()->value, 0.05);
  EXPECT_TRUE(book.standings()[5].stopped);
  EXPECT_EQ(book.standings()[5].rung, 0);
}

TEST(RungBook, MaximiseRanksHigherFirst) {
  auto spec = asha(3, 1, 3, 3);
  spec.metric.maximize = true;
  auto s = shape_of(spec);
  RungBook book(s);
  book.record(s.task(0, 0), 1);
  book.record(s.task(1, 0), 5);
  auto d = book.record(s.task(2, 0), 3);
  EXPECT_EQ(d.promoted, (std::vector<std::uint64_t>{s.task(1, 1)}));
}

TEST(RungBook, NoResultIsNeverPromotedAndAFewTrialsStillReachTheTop) {
  auto s = shape_of(asha(2, 1, 9, 3));  // floor(2/3) = 0: only the closing promotion
  RungBook book(s);
  EXPECT_TRUE(book.record(s.task(0, 0), NAN).promoted.empty());
  auto d = book.record(s.task(1, 0), 4);
  EXPECT_EQ(d.promoted, (std::vector<std::uint64_t>{s.task(1, 1)}));
  EXPECT_EQ(d.skipped, (std::vector<std::uint64_t>{s.task(0, 1), s.task(0, 2)}));
  // All results missing: every rung closes and nothing is left open.
  RungBook none(s);
  none.record(s.task(0, 0), NAN);
  auto e = none.record(s.task(1, 0), NAN);
  EXPECT_TRUE(e.promoted.empty());
  EXPECT_EQ(e.skipped.size(), 4u);
  EXPECT_TRUE(none.finished());
  EXPECT_FALSE(none.best());
}

// Workers finish tasks in a random order (asynchronous promotion): every task ends exactly
// once, recorded or skipped; no task is promoted twice; the best trial of rung 0 reaches the
// top; replaying the same results in the same order gives the same decisions.
TEST(RungBook, RandomAsynchronousRunsEndEveryTaskOnce) {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    auto spec = asha(1 + rng() % 60, 1, 27, 2 + rng() % 3);
    if (seed % 3 == 0) spec.method = spec::TuneMethod::kHyperband;
    auto s = shape_of(spec);
    std::vector<double> quality(s.trials);
    for (auto& q : quality) q = std::uniform_real_distribution<double>(0, 1)(rng);
    RungBook book(s), replay(s);
    std::map<std::uint64_t, int> ended;
    for (auto t : book.skipped_at_start()) ended[t]++;
    std::deque<std::uint64_t> queued;
    for (std::uint32_t t = 0; t < s.trials; ++t) queued.push_back(s.task(t, s.start_rung(t)));
    std::vector<std::pair<std::uint64_t, double>> log;
    while (!queued.empty()) {
      std::size_t pick = rng() % std::min<std::size_t>(queued.size(), 4);
      const std::uint64_t task = queued[pick];
      queued.erase(queued.begin() + static_cast<long>(pick));
      const double v = (rng() % 17 == 0) ? NAN : quality[s.trial_of(task)] + 0.01 * s.rung_of(task);
      auto d = book.record(task, v);
      ASSERT_TRUE(d.newly);
      log.emplace_back(task, v);
      ended[task]++;
      for (auto p : d.promoted) {
        ASSERT_EQ(s.rung_of(p), s.rung_of(task) + 1 > 0 ? s.rung_of(p) : 0);
        queued.push_back(p);
      }
      for (auto k : d.skipped) ended[k]++;
      auto again = replay.record(task, v);
      EXPECT_EQ(again.promoted, d.promoted);
      EXPECT_EQ(again.skipped, d.skipped);
    }
    EXPECT_TRUE(book.finished()) << "seed " << seed;
    ASSERT_EQ(ended.size(), s.tasks()) << "seed " << seed;
    for (auto [task, n] : ended) ASSERT_EQ(n, 1) << "task " << task << " seed " << seed;
    EXPECT_TRUE(book.promoted_pending().empty());
    // The leader is at the highest rung any trial reached with a result.
    int highest = -1;
    for (const auto& st : book.standings())
      if (!std::isnan(st.value)) highest = std::max(highest, st.rung);
    if (book.best()) EXPECT_EQ(book.best()->rung, highest) << "seed " << seed;
    if (s.brackets() == 1 && highest >= 0 && std::none_of(log.begin(), log.end(), [](auto& e) {
          return std::isnan(e.second);
        }))
      EXPECT_EQ(highest, static_cast<int>(s.rungs) - 1) << "seed " << seed;
  }
}

TEST(TrialConfig, SameTrialSameValuesWithinBounds) {
  spec::TuneSpec spec = asha(16, 1, 8, 2);
  spec.seed = 3;
  spec.space.clear();
  spec.space.push_back({"LR", spec::TuneDimension::Kind::kLogUniform, 1e-4, 1e-1, {}, {}});
  spec.space.push_back({"W", spec::TuneDimension::Kind::kInteger, 8, 10, {}, {}});
  spec.space.push_back({"ACT", spec::TuneDimension::Kind::kChoice, 0, 0, {"relu", "tanh"}, {}});
  std::map<std::string, int> widths, acts;
  for (std::uint32_t t = 0; t < 16; ++t) {
    auto v = trial_values(spec, t);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v, trial_values(spec, t));
    const double lr = std::stod(v[0]);
    EXPECT_GE(lr, 1e-4);
    EXPECT_LE(lr, 1e-1);
    widths[v[1]]++;
    acts[v[2]]++;
  }
  for (const auto& [w, n] : widths) EXPECT_TRUE(w == "8" || w == "9" || w == "10") << w;
  EXPECT_EQ(acts.size(), 2u);
  const auto seed3 = trial_values(spec, 0);
  spec.seed = 4;
  EXPECT_NE(trial_values(spec, 0), seed3);
  spec.method = spec::TuneMethod::kSobol;
  EXPECT_EQ(trial_values(spec, 5), trial_values(spec, 5));
}

TEST(TrialValues, SobolSpreadsTwentyDimensionsLikeMerlinSampleNotAtRandom) {
  // 20 dimensions (13 was the limit before): trial i is Sobol point i, scrambled with the seed,
  // so 16 trials put exactly one value in each sixteenth of every dimension (a (0,m,s)-net's
  // one-dimensional projections); random draws almost never do that in all 20.
  spec::TuneSpec spec;
  spec.method = spec::TuneMethod::kSobol;
  spec.seed = 11;
  spec.trials = 16;
  for (int i = 0; i < 20; ++i) {
    spec::TuneDimension d;
    d.name = "x" + std::to_string(i);
    d.kind = spec::TuneDimension::Kind::kUniform;
    d.low = 0;
    d.high = 1;
    spec.space.push_back(d);
  }
  std::vector<std::set<int>> bins(20);
  for (std::uint32_t t = 0; t < 16; ++t) {
    auto v = trial_values(spec, t);
    ASSERT_EQ(v.size(), 20u);
    for (int i = 0; i < 20; ++i) bins[i].insert(static_cast<int>(std::stod(v[i]) * 16));
  }
  for (int i = 0; i < 20; ++i) EXPECT_EQ(bins[i].size(), 16u) << "dimension " << i;
}

}  // namespace
}  // namespace merlin::tune
