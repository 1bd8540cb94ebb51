// A search's leaderboard in `merlin status`: its counts, title, table and JSON, from standings
// a RungBook decides.
#include "merlin/run/search_board.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "merlin/core/report/json_writer.h"
#include "merlin/core/report/text_writer.h"
#include "merlin/core/tune/rung_book.h"
#include "merlin/core/tune/trial_config.h"
#include "merlin/core/tune/tune_report.h"
#include "merlin/run/status_report.h"
#include "adapters/broker/local/local_state_store.h"
#include "tests/fakes/test_study.h"

namespace merlin::run {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

spec::TuneSpec nine_trials() {
  spec::TuneSpec s;
  s.method = spec::TuneMethod::kAsha;
  s.trials = 9;
  s.seed = 3;
  s.budget = spec::TuneBudget{"EPOCHS", 1, 9, 3, {}};
  s.space.push_back({"X", spec::TuneDimension::Kind::kUniform, 0, 1, {}, {}});
  s.space.push_back({"W", spec::TuneDimension::Kind::kInteger, 8, 64, {}, {}});
  s.space.push_back({"ACT", spec::TuneDimension::Kind::kChoice, 0, 0, {"relu", "tanh"}, {}});
  return s;
}

SearchBoard board_of(const spec::TuneSpec& spec, tune::RungBook& book, std::string labels = "") {
  SearchBoard b;
  b.step = "search";
  b.labels = labels;
  b.instance = labels.empty() ? "search" : "search/" + labels;
  b.spec = spec;
  b.shape = book.shape();
  b.board = tune::leaderboard(book.standings(), spec.metric.maximize);
  return b;
}

// Rung 0: trial t scores 0.05 + 0.1 t, trial 3 fails; the best 3 (0, 1, 2) go on, the rest
// stop. Rung 1: trial 0 scores 0.02; 1 and 2 have not ended yet.
SearchBoard midway(const spec::TuneSpec& spec) {
  tune::RungBook book(tune::shape_of(spec));
  for (std::uint32_t t = 0; t < 9; ++t) book.record(t, t == 3 ? kNone : 0.05 + 0.1 * t);
  book.record(book.shape().task(0, 1), 0.02);
  return board_of(spec, book);
}

TEST(SearchBoard, CountsEachStateAndTheLeader) {
  const auto b = midway(nine_trials());
  const auto c = search_counts(b);
  EXPECT_EQ(c.trials, 9u);
  EXPECT_EQ(c.full, 0u);
  EXPECT_EQ(c.waiting, 0u);
  EXPECT_EQ(c.running, 3u);
  EXPECT_EQ(c.completed, 0u);
  EXPECT_EQ(c.stopped, 5u);
  EXPECT_EQ(c.failed, 1u);
  ASSERT_TRUE(c.best);
  EXPECT_EQ(c.best->trial, 0u);
  EXPECT_EQ(c.best->rung, 1);
}

TEST(SearchBoard, TitleNamesTheStepItsCountsAndTheBest) {
  EXPECT_EQ(search_title(midway(nine_trials())),
            "search: 9 trials, 0 at the full budget (9), 5 stopped, 1 failed, 3 running, best "
            "0.02 (trial 0)");
}

TEST(SearchBoard, TitleOfAFinishedSearchWithLabels) {
  const auto spec = nine_trials();
  tune::RungBook book(tune::shape_of(spec));
  // Everything ends: the leader reaches the full budget; the rest stop.
  for (int round = 0; round < 4 && !book.finished(); ++round) {
    for (std::uint32_t t = 0; t < 9; ++t) book.record(t, 0.05 + 0.1 * t);
    for (auto task : book.promoted_pending()) book.record(task, 0.01 * book.shape().trial_of(task));
  }
  ASSERT_TRUE(book.finished());
  const auto b = board_of(spec, book, "N.10");
  EXPECT_EQ(search_title(b),
            "search (N.10): 9 trials, 1 at the full budget (9), 8 stopped, best 0 (trial 0)");
  EXPECT_EQ(tune::trial_state(b.board.front(), b.shape), "completed");
}

TEST(SearchBoard, BeforeAnyResultEveryTrialWaits) {
  const auto spec = nine_trials();
  tune::RungBook book(tune::shape_of(spec));
  const auto b = board_of(spec, book);
  EXPECT_EQ(search_title(b),
            "search: 9 trials, 0 at the full budget (9), 0 stopped, 9 waiting, no result yet");
  const auto t = search_table(b, 2);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_TRUE(t.rows[0][2].is_null());  // rung
  EXPECT_TRUE(t.rows[0][3].is_null());  // budget
  EXPECT_TRUE(t.rows[0][4].is_null());  // value
  EXPECT_EQ(std::get<std::string>(t.rows[0][5].value), "waiting");
}

TEST(SearchBoard, TableIsTheBestNWithOneColumnPerDimension) {
  const auto spec = nine_trials();
  const auto b = midway(spec);
  const auto t = search_table(b, 4);
  ASSERT_EQ(t.columns.size(), 9u);
  EXPECT_EQ(t.columns[6].header, "X");
  EXPECT_EQ(t.columns[8].key, "ACT");
  ASSERT_EQ(t.rows.size(), 4u);
  // The leader first: trial 0 at rung 1 (budget 3); then 1 and 2 at rung 0, then 4.
  EXPECT_EQ(std::get<std::uint64_t>(t.rows[0][0].value), 1u);
  EXPECT_EQ(std::get<std::uint64_t>(t.rows[0][1].value), 0u);
  EXPECT_EQ(std::get<std::int64_t>(t.rows[0][2].value), 1);
  EXPECT_EQ(std::get<std::int64_t>(t.rows[0][3].value), 3);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][4].value), 0.02);
  EXPECT_EQ(std::get<std::string>(t.rows[0][5].value), "running");
  EXPECT_EQ(std::get<std::uint64_t>(t.rows[1][1].value), 1u);
  EXPECT_EQ(std::get<std::uint64_t>(t.rows[3][1].value), 4u);
  EXPECT_EQ(std::get<std::string>(t.rows[3][5].value), "stopped");
  // The configuration: a real as a number, an integer as an integer, a choice as written.
  const auto values = tune::trial_values(spec, 0);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][6].value), std::stod(values[0]));
  EXPECT_EQ(std::get<std::int64_t>(t.rows[0][7].value), std::stoll(values[1]));
  EXPECT_EQ(std::get<std::string>(t.rows[0][8].value), values[2]);
  // 0: every trial; the failed one last, without a value.
  const auto all = search_table(b, 0);
  ASSERT_EQ(all.rows.size(), 9u);
  EXPECT_EQ(std::get<std::uint64_t>(all.rows[8][1].value), 3u);
  EXPECT_TRUE(all.rows[8][4].is_null());
  EXPECT_EQ(std::get<std::string>(all.rows[8][5].value), "failed");
  EXPECT_EQ(search_table(b, 100).rows.size(), 9u);
}

TEST(SearchBoard, ADimensionNamedAsAColumnIsPrefixedInJson) {
  auto spec = nine_trials();
  spec.space[0].name = "value";
  tune::RungBook book(tune::shape_of(spec));
  const auto t = search_table(board_of(spec, book), 1);
  EXPECT_EQ(t.columns[6].header, "value");
  EXPECT_EQ(t.columns[6].key, "config.value");
}

TEST(SearchBoard, TextSaysHowManyMoreTrialsThereAre) {
  const auto b = midway(nine_trials());
  const std::string text = searches_text({b}, 3);
  EXPECT_EQ(text.rfind("\nsearch: 9 trials,", 0), 0u);
  EXPECT_NE(text.find("RANK  TRIAL  RUNG  BUDGET  VALUE  STATE"), std::string::npos);
  EXPECT_NE(text.find("(6 more; --trials 0 shows every trial)\n"), std::string::npos);
  EXPECT_EQ(searches_text({b}, 0).find("more;"), std::string::npos);
  EXPECT_EQ(searches_text({}, 10), "");
}

TEST(StatusDocument, JsonIsTheStepRowsAndSearchesAnArrayOfSearches) {
  StepStatus s;
  s.step = "search";
  s.instances = 1;
  s.total = 27;
  s.done = 10;
  s.queued = 17;
  const auto b = midway(nine_trials());
  EXPECT_EQ(status_document({s}, {b}, 2, StatusFormat::kJson),
            format_status({s}, StatusFormat::kJson));
  const std::string json = status_document({s}, {b}, 2, StatusFormat::kJson, true);
  EXPECT_EQ(json.rfind("[\n{\n  \"step\": \"search\",\n  \"labels\": null,\n", 0), 0u) << json;
  EXPECT_NE(json.find("\"best_trial\": 0,\n  \"best_value\": 0.02,\n"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"rank\":1,\"trial\":0,\"rung\":1,\"budget\":3,\"value\":0.02,"
                      "\"state\":\"running\",\"X\":"),
            std::string::npos);
  EXPECT_NE(json.find("{\"rank\":2,"), std::string::npos);
  EXPECT_EQ(json.find("{\"rank\":3,"), std::string::npos);
  EXPECT_EQ(json.substr(json.size() - 4), "}\n]\n") << json;
  EXPECT_EQ(status_document({s}, {}, 10, StatusFormat::kJson, true), "[]\n");
  EXPECT_EQ(status_document({s}, {b}, 10, StatusFormat::kTable, true), searches_text({b}, 10));
}

TEST(StatusDocument, CsvIsTheStepTableAndTextAddsTheBoards) {
  StepStatus s;
  s.step = "search";
  const auto b = midway(nine_trials());
  EXPECT_EQ(status_document({s}, {b}, 10, StatusFormat::kCsv), format_status({s}, StatusFormat::kCsv));
  EXPECT_EQ(status_document({s}, {b}, 10, StatusFormat::kTable),
            format_status({s}, StatusFormat::kTable) + searches_text({b}, 10));
}

// A store that keeps no trials for instance `blind` (as a store without standings).
class BlindStore : public LocalStateStore {
 public:
  BlindStore(const std::vector<std::uint64_t>& counts, InstanceId blind)
      : LocalStateStore(counts), blind_(blind) {}
  Result<std::vector<tune::TrialStanding>> standings(InstanceId id) override {
    if (id == blind_) return std::vector<tune::TrialStanding>{};
    return LocalStateStore::standings(id);
  }

 private:
  InstanceId blind_;
};

TEST(SearchBoards, OnePerTunedInstanceWithStandingsInInstanceOrder) {
  auto study = testing::make_study(R"(description: {name: t, description: tuned}
global.parameters:
  N: {values: [10, 20], label: N.%%}
study:
  - name: plain
    run: {cmd: echo hi}
  - name: search
    run:
      cmd: echo $(N) $(X) $(EPOCHS)
      tune:
        trials: 3
        seed: 1
        space: {X: {uniform: [0, 1]}}
        budget: {token: EPOCHS, min: 1, max: 3, eta: 3}
        metric: {file: m.jsonl, mode: max}
)");
  ASSERT_TRUE(study);
  const InstanceId n10 = study->instance("search", 0), n20 = study->instance("search", 1);
  // search_boards tells the store each shape itself: nothing set here before the results.
  BlindStore store(study->counts(), n10);
  auto none = search_boards(*study->graph, store);
  ASSERT_TRUE(none.ok()) << none.error().message;
  ASSERT_EQ(none->size(), 1u) << "N.10's store keeps no trials: left out";
  EXPECT_NE(search_title((*none)[0]).find("3 waiting, no result yet"), std::string::npos);
  store.restore_trial(n20, 0, 0.5);
  store.restore_trial(n20, 1, 0.7);
  auto boards = search_boards(*study->graph, store);
  ASSERT_TRUE(boards.ok()) << boards.error().message;
  ASSERT_EQ(boards->size(), 1u);
  const auto& b = (*boards)[0];
  EXPECT_EQ(b.step, "search");
  EXPECT_EQ(b.labels, study->graph->instance(n20).labels);
  EXPECT_EQ(b.instance, study->graph->instance(n20).rel_dir);
  ASSERT_EQ(b.board.size(), 3u);
  EXPECT_EQ(b.board[0].trial, 1u) << "mode: max ranks 0.7 first";
  EXPECT_EQ(b.board[1].trial, 0u);
  EXPECT_EQ(b.board[2].rung, -1);
  EXPECT_EQ(search_title(b).rfind("search (" + b.labels + "): 3 trials, ", 0), 0u);
  LocalStateStore seeing(study->counts());
  auto both = search_boards(*study->graph, seeing);
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->size(), 2u);
  EXPECT_EQ((*both)[0].instance, study->graph->instance(n10).rel_dir);
  EXPECT_EQ((*both)[1].instance, study->graph->instance(n20).rel_dir);
}

}  // namespace
}  // namespace merlin::run
