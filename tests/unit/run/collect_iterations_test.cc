// merlin collect of a loop or fan-out step (merlin/run/collect_iterations.h), without a file:
// which iterations have rows and how many, whether more may come, and the keys that number
// (iteration, sample) pairs.
#include "merlin/run/collect_iterations.h"

#include <gtest/gtest.h>

#include "merlin/run/collect_plan.h"
#include "tests/fakes/test_study.h"

namespace merlin::run::collect {
namespace {
using State = IterationState;

IterationSeen seen(std::uint32_t it) {
  IterationSeen s;
  s.iteration = it;
  return s;
}

TEST(CollectIterations, AFanoutIterationHasItsTablesRowsOnceCopied) {
  auto s = seen(2);
  EXPECT_EQ(iteration_rows(s, true, 0).state, State::kNotYet) << "not released";
  s.journaled = true;
  s.recorded = 1;
  EXPECT_EQ(iteration_rows(s, true, 0).state, State::kNoTable) << "released, its file refused";
  s.table_rows = 7;
  const auto r = iteration_rows(s, true, 0);
  EXPECT_EQ(r.state, State::kRows);
  EXPECT_EQ(r.count, 7u);
  EXPECT_EQ(r.iteration, 2u);
  auto skipped = seen(3);
  skipped.recorded = 0;
  EXPECT_EQ(iteration_rows(skipped, true, 0).state, State::kSkipped);
}

TEST(CollectIterations, ALoopStepsIterationHasTheStudysSamplesOnceReleased) {
  const auto first = iteration_rows(seen(1), false, 5);
  EXPECT_EQ(first.state, State::kRows) << "iteration 1 is there from the start";
  EXPECT_EQ(first.count, 5u);
  EXPECT_EQ(iteration_rows(seen(2), false, 5).state, State::kNotYet);
  auto started = seen(2);
  started.journaled = true;  // a worker's journal: no count records, but its tasks
  EXPECT_EQ(iteration_rows(started, false, 5).count, 5u);
  auto recorded = seen(2);
  recorded.recorded = 5;
  EXPECT_EQ(iteration_rows(recorded, false, 5).state, State::kRows);
  recorded.recorded = 0;
  EXPECT_EQ(iteration_rows(recorded, false, 5).state, State::kSkipped);
}

std::vector<IterationRows> rows_of(const std::vector<IterationSeen>& seen, bool fanout) {
  std::vector<IterationRows> out;
  for (const auto& s : seen) out.push_back(iteration_rows(s, fanout, 4));
  return out;
}

TEST(CollectIterations, MoreComeUntilADeciderStopsTheSkipOrTheBound) {
  std::vector<IterationSeen> s = {seen(1), seen(2), seen(3)};
  EXPECT_TRUE(more_to_come(s, rows_of(s, false))) << "iteration 2 not released yet";
  s[0].stop_after = true;
  EXPECT_FALSE(more_to_come(s, rows_of(s, false))) << "iteration 1's decider stopped the loop";
  s[0].stop_after = false;
  s[1].recorded = 0;  // a local run's stop: later iterations recorded as 0
  EXPECT_FALSE(more_to_come(s, rows_of(s, false)));
  s[1].recorded = 4;
  s[2].recorded = 4;
  EXPECT_FALSE(more_to_come(s, rows_of(s, false))) << "the bound: iteration 3 is the last";
}

TEST(CollectIterations, ARefusedFanoutIterationComesUntilItsOneTaskFinished) {
  std::vector<IterationSeen> s = {seen(1)};
  EXPECT_TRUE(more_to_come(s, rows_of(s, true))) << "not expanded yet";
  s[0].journaled = true;
  EXPECT_TRUE(more_to_come(s, rows_of(s, true))) << "its failing task still runs";
  s[0].finished_any = true;
  EXPECT_FALSE(more_to_come(s, rows_of(s, true)));
  s[0].table_rows = 3;
  EXPECT_FALSE(more_to_come(s, rows_of(s, true)));
}

TEST(CollectKeys, IterationsAreNumberedInTheOrderTheyWereFound) {
  KeySpace k;
  EXPECT_TRUE(k.add(1, InstanceId{4}, 2));
  EXPECT_TRUE(k.add(3, InstanceId{9}, 0));  // an empty iteration takes no key
  EXPECT_TRUE(k.add(2, InstanceId{7}, 3));
  EXPECT_FALSE(k.add(1, InstanceId{4}, 2)) << "an iteration's rows never change";
  EXPECT_EQ(k.size(), 5u);
  EXPECT_EQ(k.key_of(1, 1), 1u);
  EXPECT_EQ(k.key_of(2, 0), 2u);
  EXPECT_EQ(k.key_of(2, 2), 4u);
  EXPECT_FALSE(k.key_of(2, 3)) << "past its rows";
  EXPECT_FALSE(k.key_of(4, 0)) << "not found yet";
  EXPECT_EQ(k.part_index(0), 0u);
  EXPECT_EQ(k.part_index(1), 0u);
  EXPECT_EQ(k.part_index(2), 2u);
  EXPECT_EQ(k.parts()[k.part_index(4)].iteration, 2u);
  EXPECT_TRUE(k.has(3));
  EXPECT_FALSE(k.has(4));
}

TEST(CollectKeys, AFilesRowsOfAnIterationNotFoundAreNotTakenAndAGrownLedgerReadsTheNew) {
  KeySpace k;
  k.add(1, InstanceId{0}, 2);
  Ledger l(k.size());
  // The file holds iteration 1's two rows and one of iteration 2 (not found by this collect).
  l.record_row(0, k.key_of(1, 0).value_or(~0ull), data::SampleStatus::kOk);
  l.record_row(1, k.key_of(1, 1).value_or(~0ull), data::SampleStatus::kOk);
  l.record_row(2, k.key_of(2, 0).value_or(~0ull), data::SampleStatus::kOk);
  EXPECT_EQ(l.taken, (std::vector<bool>{true, true}));
  k.add(2, InstanceId{3}, 2);
  l.grow(k.size());
  const Round r = plan_round(l, {true, true, true, false}, {true, true, true, false}, false);
  EXPECT_EQ(r.todo, (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(r.count, 1u);
}

constexpr const char* kLoopStudy = R"Y(
description: {name: c, description: d}
global.parameters:
  P: {values: [1, 2], label: P.%%}
study:
  - name: propose
    description: d
    run:
      cmd: echo hi > next.csv
  - name: sim
    description: d
    run:
      cmd: echo $(A)
      depends: [propose]
      samples_from:
        file: $(propose.workspace)/next.csv
        column_labels: [A]
  - name: sweep
    description: d
    run:
      cmd: echo $(A) $(P)
      depends: [propose]
      samples_from:
        file: $(propose.workspace)/next.csv
        column_labels: [A]
  - name: decide
    description: d
    run:
      cmd: touch MERLIN_LOOP_AGAIN
      depends: [sim, sweep_*]
      loop:
        back_to: propose
        max_iterations: 3
)Y";

TEST(CollectIterations, AFanoutStepInALoopIsCollectableAParameterisedOneIsNot) {
  auto study = testing::make_study(kLoopStudy, 0);
  ASSERT_TRUE(study) << "the spec builds";
  auto node = collectable_step(*study->graph, "sim");
  ASSERT_TRUE(node.ok()) << node.error().message;
  EXPECT_TRUE((*node)->fanout);
  EXPECT_GE((*node)->loop, 0);
  auto sweep = collectable_step(*study->graph, "sweep");
  ASSERT_FALSE(sweep.ok());
  EXPECT_EQ(sweep.error().message,
            "--step sweep: it runs for 2 parameter combinations in each loop iteration; merlin "
            "collect takes a step of one");
  auto decide = collectable_step(*study->graph, "decide");
  ASSERT_FALSE(decide.ok());
  EXPECT_NE(decide.error().message.find("not a sampled step"), std::string::npos);
}

TEST(CollectLayout, AnIterationColumnMustBeInBothOrNeither) {
  data::DatasetLayout want;
  want.step = "sim";
  want.files = {"r.json"};
  want.iterations = true;
  auto old = want;
  old.iterations = false;
  EXPECT_EQ(layout_mismatch(old, want),
            "it has no /iteration column, which a loop or fan-out step's rows need (a file of an "
            "earlier merlin, or of another step)");
  EXPECT_EQ(layout_mismatch(want, old),
            "it has an /iteration column (a loop or fan-out step's file)");
  EXPECT_EQ(layout_mismatch(want, want), "");
}

}  // namespace
}  // namespace merlin::run::collect
