// Loops (docs/fanout.md): the graph pre-expands K iterations of the body; the Plan releases
// iteration i+1 when iteration i's decider says "again", and skips the rest when it says stop.
#include <gtest/gtest.h>

#include <set>

#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/plan/plan.h"
#include "tests/fakes/test_study.h"

namespace merlin {
namespace {
using testing::make_study;

// setup → propose → trial (fan-out) → select (decides, back to propose, ≤ 3) → report.
constexpr const char* kLoop = R"Y(
description: {name: loop, description: d}
study:
  - name: setup
    description: d
    run:
      cmd: echo once
  - name: propose
    description: d
    run:
      cmd: echo $(MERLIN_ITERATION) > next.csv
      depends: [setup]
  - name: trial
    description: d
    run:
      cmd: echo $(X) $(select.workspace)
      depends: [propose]
      samples_from:
        file: $(propose.workspace)/next.csv
        column_labels: [X]
  - name: select
    description: d
    run:
      cmd: echo $(trial.workspace) $(MERLIN_ITERATION)
      depends: [trial]
      loop:
        back_to: propose
        max_iterations: 3
  - name: report
    description: d
    run:
      cmd: echo $(select.workspace)
      depends: [select]
)Y";

class FakeOutputs : public FanoutSource {
 public:
  std::set<std::uint32_t> again;  ///< deciders that ask for another iteration
  Result<std::uint64_t> expand(InstanceId) const override { return std::uint64_t{2}; }
  SampleHierarchy hierarchy(InstanceId) const override { return SampleHierarchy(2, 25); }
  bool loop_again(InstanceId d) const override { return again.count(d.v) > 0; }
};

class PlanLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    study_ = make_study(kLoop);
    ASSERT_TRUE(study_);
    plan_ = std::make_unique<Plan>(*study_->graph, &outputs_);
    store_ = std::make_unique<LocalStateStore>(study_->graph->start_counts());
  }
  InstanceId at(const std::string& step, std::uint32_t it) const {
    for (const auto& n : study_->graph->steps())
      if (n.name == step) return study_->graph->in_iteration(n.id, 0, it);
    ADD_FAILURE() << step;
    return {};
  }
  std::vector<Routed> commit(InstanceId i, SampleId s) {
    auto c = store_->commit(i, s, Outcome::kSuccess, 0);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    if (!c.ok()) return {};
    auto r = plan_->after_commit(i, s, *c, *store_);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : std::vector<Routed>{};
  }
  // Runs iteration `it` from propose to select; returns what select's commit released.
  std::vector<Routed> run_iteration(std::uint32_t it) {
    auto t = commit(at("propose", it), 0);
    EXPECT_EQ(t.size(), 1u);
    EXPECT_EQ(t.empty() ? InstanceId{} : t[0].message.instance, at("trial", it));
    commit(at("trial", it), 0);
    auto s = commit(at("trial", it), 1);
    EXPECT_EQ(s.size(), 1u);
    return commit(at("select", it), 0);
  }

  FakeOutputs outputs_;
  std::unique_ptr<testing::TestStudy> study_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<LocalStateStore> store_;
};

TEST_F(PlanLoop, GraphHoldsEveryIterationOfTheBodyOnly) {
  const auto& g = *study_->graph;
  ASSERT_EQ(g.loops().size(), 1u);
  EXPECT_EQ(g.loops()[0].iterations, 3u);
  EXPECT_EQ(g.loops()[0].body.size(), 3u) << "propose, trial, select; not setup or report";
  EXPECT_EQ(g.instances().size(), 2u + 3u * 3u);
  EXPECT_EQ(g.instance(at("trial", 2)).rel_dir, "trial/iter.2");
  EXPECT_EQ(g.instance(at("trial", 1)).rel_dir, "trial/iter.1");
  EXPECT_EQ(g.instance(at("setup", 1)).rel_dir, "setup");
  EXPECT_TRUE(g.unknown_at_start(at("propose", 2)));
  EXPECT_FALSE(g.unknown_at_start(at("propose", 1)));
  // Iteration 2's head waits for iteration 1's decider; report waits for every decider.
  auto prev = g.previous_deciders(at("propose", 2));
  ASSERT_EQ(prev.size(), 1u);
  EXPECT_EQ(prev[0], at("select", 1));
  EXPECT_EQ(g.instance(study_->instance("report")).parents.size(), 3u);
}

TEST_F(PlanLoop, TokensNameTheSameIteration) {
  auto t = study_->renderer->render(at("select", 2), 0, TaskKind::kCmd);
  EXPECT_NE(t.script_text.find("echo /ws/trial/iter.2 2"), std::string::npos) << t.script_text;
  EXPECT_EQ(t.dir, "/ws/select/iter.2");
  EXPECT_EQ(study_->renderer->fanout().source_path(at("trial", 3)), "/ws/propose/iter.3/next.csv");
  auto r = study_->renderer->render(study_->instance("report"), 0, TaskKind::kCmd);
  EXPECT_NE(r.script_text.find("echo /ws/select\n"), std::string::npos)
      << "after the loop: the step's top directory, every iteration under it";
}

TEST_F(PlanLoop, AgainReleasesTheNextIterationAndStopSkipsTheRest) {
  ASSERT_EQ(commit(study_->instance("setup"), 0).size(), 1u);
  outputs_.again.insert(at("select", 1).v);
  auto next = run_iteration(1);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].message.instance, at("propose", 2));
  EXPECT_EQ(next[0].message.hi, 1u) << "a copy's count is recorded at its release";
  auto after = run_iteration(2);  // select 2 says stop
  ASSERT_EQ(after.size(), 1u) << "report, once the third iteration is skipped";
  EXPECT_EQ(after[0].message.instance, study_->instance("report"));
  auto p = *store_->progress();
  for (const char* s : {"propose", "trial", "select"}) {
    EXPECT_TRUE(p[at(s, 3).v].count_known) << s;
    EXPECT_EQ(p[at(s, 3).v].total, 0u) << s << " of iteration 3 is skipped";
    EXPECT_TRUE(*store_->is_complete(at(s, 3))) << s;
  }
}

// The worker that committed select's "stop" died before publishing: the redelivered leaf
// releases report again, though report's release claim was taken by the lost publish.
TEST_F(PlanLoop, RedeliveredStopReleasesTheStepsAfterTheLoopAgain) {
  commit(study_->instance("setup"), 0);
  auto lost = run_iteration(1);  // stop: report released, then "lost"
  ASSERT_EQ(lost.size(), 1u);
  auto again = plan_->after_redelivery(at("select", 1), 0, *store_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].message.instance, study_->instance("report"));
}

TEST_F(PlanLoop, TheBoundEndsTheLoopEvenIfTheDeciderAsksAgain) {
  commit(study_->instance("setup"), 0);
  for (std::uint32_t it = 1; it <= 3; ++it) outputs_.again.insert(at("select", it).v);
  run_iteration(1);
  run_iteration(2);
  auto last = run_iteration(3);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].message.instance, study_->instance("report"));
}

TEST_F(PlanLoop, RestartAfterAStopThatWasNotRecordedSkipsInsteadOfRunning) {
  commit(study_->instance("setup"), 0);
  run_iteration(1);  // select 1 says stop; pretend the skip was lost (kill -9)
  LocalStateStore restarted(study_->graph->start_counts());
  restarted.restore(study_->instance("setup"), 0, Outcome::kSuccess, 0);
  restarted.restore(at("propose", 1), 0, Outcome::kSuccess, 0);
  restarted.restore_count(at("trial", 1), 2);
  restarted.restore(at("trial", 1), 0, Outcome::kSuccess, 0);
  restarted.restore(at("trial", 1), 1, Outcome::kSuccess, 0);
  restarted.restore(at("select", 1), 0, Outcome::kSuccess, 0);
  auto ready = plan_->ready_at_start(restarted);
  ASSERT_TRUE(ready.ok()) << ready.error().message;
  ASSERT_EQ(ready->size(), 1u);
  EXPECT_EQ((*ready)[0].message.instance, study_->instance("report"));
}

}  // namespace
}  // namespace merlin
