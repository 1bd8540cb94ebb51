// merlin collect's decisions (merlin/run/collect_plan.h), without a file or a clock: which
// files and steps it reads, what an existing file holds, which samples a round reads, where a
// read sample goes, when --follow stops, and the summary.
#include "merlin/run/collect_plan.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/fakes/test_study.h"

namespace merlin::run::collect {
namespace {
using data::SampleStatus;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr const char* kStudy = R"Y(
description: {name: c, description: d}
global.parameters:
  P: {values: [1, 2], label: P.%%}
study:
  - name: sim
    description: d
    run:
      cmd: echo $(X)
  - name: sweep
    description: d
    run:
      cmd: echo $(X) $(P)
  - name: once
    description: d
    run:
      cmd: echo hi
merlin:
  samples:
    column_labels: [X]
)Y";

TEST(CollectFiles, EachFileIsAKindAndAStem) {
  auto files = output_files({"out/result.json", "fields.npy"});
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].kind, data::OutputKind::kJson);
  EXPECT_EQ((*files)[0].stem, data::output_stem("out/result.json"));
  EXPECT_EQ((*files)[1].kind, data::OutputKind::kNpy);
}

TEST(CollectFiles, NoneAnAbsolutePathOrTwoOfOneStemAreRefused) {
  auto none = output_files({});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "give the output files to read: --file NAME");
  auto absolute = output_files({"/tmp/r.json"});
  ASSERT_FALSE(absolute.ok());
  EXPECT_EQ(absolute.error().message,
            "--file /tmp/r.json: a path relative to each sample's directory");
  auto twins = output_files({"a/r.json", "b/r.json"});
  ASSERT_FALSE(twins.ok());
  EXPECT_EQ(twins.error().code, ErrorCode::kBadInput);
  EXPECT_NE(twins.error().message.find("would make fields of one name"), std::string::npos);
}

TEST(CollectStep, ASampledStepOfOneCombinationIsCollectable) {
  auto study = testing::make_study(kStudy, 4);
  ASSERT_TRUE(study);
  auto node = collectable_step(*study->graph, "sim");
  ASSERT_TRUE(node.ok()) << node.error().message;
  EXPECT_EQ((*node)->name, "sim");
}

TEST(CollectStep, AMissingUnsampledOrParameterisedStepSaysWhy) {
  auto study = testing::make_study(kStudy, 4);
  ASSERT_TRUE(study);
  auto missing = collectable_step(*study->graph, "simm");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message.rfind("--step simm: the study has no such step", 0), 0u);
  EXPECT_NE(missing.error().message.find("sim"), std::string::npos) << "did you mean";
  auto unsampled = collectable_step(*study->graph, "once");
  ASSERT_FALSE(unsampled.ok());
  EXPECT_NE(unsampled.error().message.find("not a sampled step"), std::string::npos);
  auto sweep = collectable_step(*study->graph, "sweep");
  ASSERT_FALSE(sweep.ok());
  EXPECT_EQ(sweep.error().message,
            "--step sweep: it runs for 2 parameter combinations; merlin collect takes a step of "
            "one");
}

TEST(CollectLayout, AFileOfAnotherStepFilesOrInputsIsNamedFirstDifferenceFirst) {
  data::DatasetLayout want;
  want.step = "sim";
  want.files = {"r.json"};
  want.input_columns = {"X"};
  EXPECT_EQ(layout_mismatch(want, want), "");
  auto other = want;
  other.step = "post";
  EXPECT_EQ(layout_mismatch(other, want), "it holds step 'post', not 'sim'");
  other = want;
  other.files = {"a.json", "b.csv"};
  EXPECT_EQ(layout_mismatch(other, want), "it holds the files [a.json, b.csv], not [r.json]");
  other = want;
  other.input_columns = {};
  EXPECT_EQ(layout_mismatch(other, want), "its inputs are [], the study's [X]");
}

TEST(CollectLedger, TheFilesRowsAreTakenAndTheLastRowOfAnIdDecidesItsRedo) {
  Ledger l(4);
  l.record_row(0, 0, SampleStatus::kOk);
  l.record_row(1, 1, SampleStatus::kMalformed);
  l.record_row(2, 2, SampleStatus::kFailed);
  l.record_row(3, 2, SampleStatus::kOk);      // a later row of sample 2
  l.record_row(4, 9, SampleStatus::kFailed);  // not a sample of the step
  EXPECT_EQ(l.taken, (std::vector<bool>{true, true, true, false}));
  ASSERT_EQ(l.redo.size(), 1u);
  EXPECT_EQ(l.redo.at(1).row, 1u);
  EXPECT_EQ(l.redo.at(1).was, SampleStatus::kMalformed);
}

TEST(CollectRound, FinishedSamplesNotTakenAreRead) {
  Ledger l(4);
  l.record_row(0, 0, SampleStatus::kOk);
  auto r = plan_round(l, {true, true, false, true}, {true, true, false, false}, true);
  EXPECT_EQ(r.todo, (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(r.count, 2u);
}

TEST(CollectRound, MissingAndMalformedRowsAreReadAgainInTheFirstRoundOnly) {
  Ledger l(2);
  l.record_row(0, 0, SampleStatus::kMissing);
  l.record_row(1, 1, SampleStatus::kMalformed);
  auto first = plan_round(l, {true, true}, {true, true}, true);
  EXPECT_EQ(first.todo, (std::vector<bool>{true, true}));
  EXPECT_EQ(first.count, 2u);
  auto later = plan_round(l, {true, true}, {true, true}, false);
  EXPECT_EQ(later.count, 0u);
}

TEST(CollectRound, AFailedRowIsReadAgainWhenItsJournalShowsASuccess) {
  Ledger l(1);
  l.record_row(0, 0, SampleStatus::kFailed);
  EXPECT_EQ(plan_round(l, {true}, {false}, true).count, 0u);
  EXPECT_EQ(plan_round(l, {true}, {true}, false).count, 1u) << "repaired by a restart";
}

TEST(CollectHandoff, ANewSampleIsAddedAndTaken) {
  Ledger l(2);
  auto to = route_read(l, 1, SampleStatus::kOk);
  EXPECT_FALSE(to.rewrite);
  EXPECT_TRUE(l.taken[1]);
}

TEST(CollectHandoff, ARowToRedoIsRewrittenAndNotReadAgainUnlessItFailedAgain) {
  Ledger l(2);
  l.record_row(7, 0, SampleStatus::kFailed);
  l.record_row(8, 1, SampleStatus::kFailed);
  auto repaired = route_read(l, 0, SampleStatus::kOk);
  EXPECT_TRUE(repaired.rewrite);
  EXPECT_EQ(repaired.was.row, 7u);
  EXPECT_EQ(repaired.was.was, SampleStatus::kFailed);
  EXPECT_EQ(l.redo.count(0), 0u);
  auto still = route_read(l, 1, SampleStatus::kFailed);
  EXPECT_TRUE(still.rewrite);
  EXPECT_EQ(l.redo.count(1), 1u) << "a failed sample is read again when it succeeds";
}

TEST(CollectFollow, WithoutFollowOrWhenEverySampleFinishedItIsDone) {
  FollowState st{~std::uint64_t{0}, Clock::time_point{}};
  int asked = 0;
  auto alive = [&] { return ++asked, true; };
  EXPECT_EQ(next_round(false, true, 1, 4, alive, st, Clock::time_point{}, seconds(5)),
            NextRound::kDone);
  EXPECT_EQ(next_round(true, true, 4, 4, alive, st, Clock::time_point{}, seconds(5)),
            NextRound::kDone);
  EXPECT_EQ(asked, 0) << "the run is not looked at when the answer does not need it";
}

TEST(CollectFollow, ALocalRunThatIsGoneAndCommitsNothingStopsTheFollowAfterTheWindow) {
  const Clock::time_point t0{};
  FollowState st{~std::uint64_t{0}, t0};
  auto gone = [] { return false; };
  EXPECT_EQ(next_round(true, true, 1, 4, gone, st, t0, seconds(5)), NextRound::kPoll)
      << "the first round sees a new count";
  EXPECT_EQ(next_round(true, true, 1, 4, gone, st, t0 + seconds(4), seconds(5)), NextRound::kPoll);
  EXPECT_EQ(next_round(true, true, 2, 4, gone, st, t0 + seconds(6), seconds(5)), NextRound::kPoll)
      << "a new commit is a sign of life";
  EXPECT_EQ(next_round(true, true, 2, 4, gone, st, t0 + seconds(11), seconds(5)), NextRound::kGone);
}

TEST(CollectFollow, ALiveOrRemoteRunIsWaitedForWithoutEnd) {
  const Clock::time_point t0{};
  FollowState st{1, t0};
  EXPECT_EQ(next_round(
                true, true, 1, 4, [] { return true; }, st, t0 + seconds(60), seconds(5)),
            NextRound::kPoll);
  int asked = 0;
  EXPECT_EQ(
      next_round(
          true, false, 1, 4, [&] { return ++asked, false; }, st, t0 + seconds(600), seconds(5)),
      NextRound::kPoll);
  EXPECT_EQ(asked, 0) << "a broker run has no live file to look at";
}

TEST(CollectSummary, TheWritersCountersFillTheSummary) {
  CollectSummary head;
  head.output = "out.h5";
  head.samples = 10;
  head.already = 3;
  WriterTally t;
  t.counts[static_cast<int>(SampleStatus::kMissing)] = 1;
  t.counts[static_cast<int>(SampleStatus::kOk)] = 5;
  t.counts[static_cast<int>(SampleStatus::kFailed)] = 1;
  t.counts[static_cast<int>(SampleStatus::kMalformed)] = 0;
  t.written = 7;
  t.waiting = 2;
  t.rows = 10;
  t.rewritten = 2;
  t.rewritten_counts[static_cast<int>(SampleStatus::kOk)] = 1;
  auto s = summary_of(head, t);
  EXPECT_EQ(s.output, "out.h5");
  EXPECT_EQ(s.already, 3u);
  EXPECT_EQ(s.ok, 5u);
  EXPECT_EQ(s.missing, 1u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.written, 7u);
  EXPECT_EQ(s.unwritten, 2u);
  EXPECT_EQ(s.rows, 10u);
  EXPECT_EQ(s.rewritten, 2u);
  EXPECT_EQ(s.rewritten_ok, 1u);
}

TEST(CollectInputs, ASampleValueIsItsNumberOrNaN) {
  EXPECT_EQ(input_value("2.5"), 2.5);
  EXPECT_EQ(input_value("-1e3"), -1000.0);
  EXPECT_TRUE(std::isnan(input_value("")));
  EXPECT_TRUE(std::isnan(input_value("3 apples")));
  EXPECT_TRUE(std::isnan(input_value("red")));
}

}  // namespace
}  // namespace merlin::run::collect
