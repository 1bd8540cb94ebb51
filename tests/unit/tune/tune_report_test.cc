#include "merlin/core/tune/tune_report.h"

#include <gtest/gtest.h>

#include <cmath>

namespace merlin::tune {
namespace {

spec::TuneSpec choice_spec() {
  spec::TuneSpec s;
  s.method = spec::TuneMethod::kAsha;
  s.trials = 3;
  s.budget = spec::TuneBudget{"EPOCHS", 1, 9, 3, {}};
  s.space.push_back({"ACT", spec::TuneDimension::Kind::kChoice, 0, 0, {"it's \"x\""}, {}});
  s.space.push_back({"W", spec::TuneDimension::Kind::kInteger, 4, 4, {}, {}});
  return s;
}

TEST(TuneReport, LeaderboardPutsTheHighestRungThenTheBestValueFirst) {
  std::vector<TrialStanding> s = {{0, 1, 0.5, false, true},
                                  {1, 2, 0.9, false, true},
                                  {2, 1, NAN, false, true},
                                  {3, 1, 0.2, false, true},
                                  {4, -1, NAN, true, false}};
  auto min = leaderboard(s, false);
  std::vector<std::uint32_t> order;
  for (const auto& t : min) order.push_back(t.trial);
  EXPECT_EQ(order, (std::vector<std::uint32_t>{1, 3, 0, 2, 4}));
  auto max = leaderboard(s, true);
  EXPECT_EQ(max[1].trial, 0u);
}

TEST(TuneReport, BestFilesQuoteWhatTheyHoldAndSayNothingWithoutALeader) {
  auto spec = choice_spec();
  auto shape = shape_of(spec);
  std::vector<TrialStanding> board = {{2, 2, 0.25, false, true}};
  const auto json = best_json(spec, shape, board, "/ws/s/trial_2");
  EXPECT_EQ(json,
            "{\"trial\": 2, \"rung\": 2, \"budget\": 9, \"value\": 0.25, \"config\": {\"ACT\": "
            "\"it's \\\"x\\\"\", \"W\": 4}, \"method\": \"asha\", \"mode\": \"min\", \"trials\": 3, "
            "\"trial_dir\": \"/ws/s/trial_2\"}\n");
  const auto env = best_env(spec, shape, board, "/ws/s/trial_2");
  EXPECT_NE(env.find("ACT='it'\\''s \"x\"'\n"), std::string::npos) << env;
  EXPECT_NE(env.find("EPOCHS='9'\n"), std::string::npos) << env;
  const auto csv = trials_csv(spec, shape, board);
  EXPECT_EQ(csv, "trial,rung,budget,value,state,ACT,W\n2,2,9,0.25,completed,\"it's \"\"x\"\"\",4\n");
  std::vector<TrialStanding> none = {{0, 0, NAN, false, true}};
  EXPECT_EQ(best_json(spec, shape, none, "/x"), "{}\n");
  EXPECT_EQ(best_env(spec, shape, none, "/x"), "");
}

TEST(TuneReport, APrunedTrialIsNamedSoAndOnlyAStoppedResultlessOneCanBe) {
  auto spec = choice_spec();
  auto shape = shape_of(spec);
  std::vector<TrialStanding> board = {{0, 2, 0.25, false, true}, {1, 1, NAN, false, true},
                                      {2, 1, NAN, false, true}};
  EXPECT_EQ(trials_csv(spec, shape, board, {1}),
            "trial,rung,budget,value,state,ACT,W\n"
            "0,2,9,0.25,completed,\"it's \"\"x\"\"\",4\n"
            "1,1,3,,pruned,\"it's \"\"x\"\"\",4\n"
            "2,1,3,,failed,\"it's \"\"x\"\"\",4\n");
  EXPECT_EQ(trial_state({0, 1, NAN, true, false}, shape, true), "running");
  EXPECT_EQ(trial_state({0, 1, 0.3, false, true}, shape, true), "stopped");
}

TEST(TuneReport, TrialDirectoriesArePaddedToTheLargestTrial) {
  spec::TuneSpec s = choice_spec();
  s.trials = 100;
  auto shape = shape_of(s);
  EXPECT_EQ(trial_dir_name(shape, 7), "trial_07");
  EXPECT_EQ(trial_dir_name(shape, 99), "trial_99");
  s.trials = 1;
  EXPECT_EQ(trial_dir_name(shape_of(s), 0), "trial_0");
}

}  // namespace
}  // namespace merlin::tune
