// Plan with a fan-out step (docs/fanout.md): releasing it asks the FanoutSource for its rows,
// records the count once in the store, and queues [0, count); its hierarchy splits its ranges.
#include <gtest/gtest.h>

#include <map>

#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/plan/plan.h"
#include "tests/fakes/test_study.h"

namespace merlin {
namespace {
using testing::make_study;

// propose (unsampled) → trial (fan-out over propose's file) → report (funnel).
constexpr const char* kFanout = R"Y(
description: {name: fan, description: d}
study:
  - name: propose
    description: d
    run:
      cmd: echo 1 > next.csv
  - name: trial
    description: d
    run:
      cmd: echo $(LR)
      depends: [propose]
      task_queue: qt
      samples_from:
        file: $(propose.workspace)/next.csv
        column_labels: [LR]
  - name: report
    description: d
    run:
      cmd: echo done
      depends: [trial_*]
)Y";

// Rows per instance as a test sets them; an absent instance fails to expand.
class FakeFanout : public FanoutSource {
 public:
  std::map<std::uint32_t, std::uint64_t> rows;
  mutable int expansions = 0;
  Result<std::uint64_t> expand(InstanceId id) const override {
    ++expansions;
    auto it = rows.find(id.v);
    if (it == rows.end()) return Error::bad_input("step 'trial': next.csv: file not found");
    return it->second;
  }
  SampleHierarchy hierarchy(InstanceId id) const override {
    auto it = rows.find(id.v);
    return SampleHierarchy(it == rows.end() ? 1 : it->second, 25);
  }
  std::map<std::uint32_t, bool> again;  ///< loop verdicts by decider instance (default: stop)
  bool loop_again(InstanceId decider) const override {
    auto it = again.find(decider.v);
    return it != again.end() && it->second;
  }
};

class PlanFanout : public ::testing::Test {
 protected:
  void SetUp() override {
    study_ = make_study(kFanout);
    ASSERT_TRUE(study_);
    plan_ = std::make_unique<Plan>(*study_->graph, &fanout_);
    store_ = std::make_unique<LocalStateStore>(study_->graph->start_counts());
    propose_ = study_->instance("propose");
    trial_ = study_->instance("trial");
    report_ = study_->instance("report");
  }
  std::vector<Routed> commit(InstanceId instance, SampleId sample,
                             Outcome outcome = Outcome::kSuccess) {
    auto c = store_->commit(instance, sample, outcome, 1.0);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    if (!c.ok()) return {};
    auto r = plan_->after_commit(instance, sample, *c, *store_);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : std::vector<Routed>{};
  }

  FakeFanout fanout_;
  std::unique_ptr<testing::TestStudy> study_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<LocalStateStore> store_;
  InstanceId propose_, trial_, report_;
};

TEST_F(PlanFanout, FanoutStepIsSampledWithWholeEdgesAndUnknownCount) {
  const auto& g = *study_->graph;
  EXPECT_TRUE(g.step_of(trial_).fanout);
  EXPECT_TRUE(g.step_of(trial_).sampled);
  EXPECT_EQ(g.start_counts()[trial_.v], kCountUnknown);
  EXPECT_EQ(g.start_counts()[propose_.v], 1u);
  ASSERT_EQ(g.instance(trial_).parents.size(), 1u);
  EXPECT_EQ(g.instance(trial_).parents[0].kind, EdgeKind::kWhole);
  EXPECT_FALSE(*store_->is_complete(trial_)) << "report must wait for trial's rows";
}

TEST_F(PlanFanout, StartQueuesOnlyTheProducer) {
  auto ready = plan_->ready_at_start(*store_);
  ASSERT_TRUE(ready.ok());
  ASSERT_EQ(ready->size(), 1u);
  EXPECT_EQ((*ready)[0].message.instance, propose_);
  EXPECT_EQ(fanout_.expansions, 0);
}

TEST_F(PlanFanout, ProducerCommitExpandsRecordsTheCountAndQueuesTheWholeRange) {
  fanout_.rows[trial_.v] = 40;
  auto ready = commit(propose_, 0);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].queue, "qt");
  EXPECT_EQ(ready[0].message.instance, trial_);
  EXPECT_EQ(ready[0].message.lo, 0u);
  EXPECT_EQ(ready[0].message.hi, 40u);
  auto p = store_->progress();
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE((*p)[trial_.v].count_known);
  EXPECT_EQ((*p)[trial_.v].total, 40u);
}

TEST_F(PlanFanout, SplitFollowsTheInstancesOwnHierarchy) {
  fanout_.rows[trial_.v] = 40;  // 2 levels of 25: children [0,25) and [25,40)
  auto ready = commit(propose_, 0);
  ASSERT_EQ(ready.size(), 1u);
  auto kids = plan_->split(ready[0].message);
  ASSERT_EQ(kids.size(), 2u);
  EXPECT_EQ(kids[0].lo, 0u);
  EXPECT_EQ(kids[0].hi, 25u);
  EXPECT_EQ(kids[1].lo, 25u);
  EXPECT_EQ(kids[1].hi, 40u);
}

TEST_F(PlanFanout, FunnelIsReleasedOnceEveryRowCommitted) {
  fanout_.rows[trial_.v] = 3;
  commit(propose_, 0);
  EXPECT_TRUE(commit(trial_, 2).empty());
  EXPECT_TRUE(commit(trial_, 0).empty());
  auto ready = commit(trial_, 1);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].message.instance, report_);
}

TEST_F(PlanFanout, RedeliveryReleasesAgainWithTheRecordedCount) {
  fanout_.rows[trial_.v] = 5;
  ASSERT_EQ(commit(propose_, 0).size(), 1u);  // this publish is "lost"
  fanout_.rows[trial_.v] = 9;                 // the producer's file changed meanwhile
  auto again = plan_->after_redelivery(propose_, 0, *store_);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].message.hi, 5u) << "the first recorded count stands";
}

TEST_F(PlanFanout, FailedExpansionQueuesOneTaskAndTheStudyGoesOn) {
  auto ready = commit(propose_, 0);  // no rows: expansion fails
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].message, (TaskMessage{trial_, 0, 1}));
  // The worker fails that one task; the funnel is released.
  auto after = commit(trial_, 0, Outcome::kSoftFail);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].message.instance, report_);
}

TEST_F(PlanFanout, RestartReleasesAnUnfinishedFanoutWithItsRecordedCount) {
  fanout_.rows[trial_.v] = 4;
  LocalStateStore restarted(study_->graph->start_counts());
  restarted.restore(propose_, 0, Outcome::kSuccess, 1);
  restarted.restore_count(trial_, 4);
  restarted.restore(trial_, 1, Outcome::kSuccess, 1);
  auto ready = plan_->ready_at_start(restarted);
  ASSERT_TRUE(ready.ok());
  ASSERT_EQ(ready->size(), 1u);
  EXPECT_EQ((*ready)[0].message.instance, trial_);
  EXPECT_EQ((*ready)[0].message.hi, 4u);
  EXPECT_FALSE(*restarted.is_complete(report_));
}

TEST_F(PlanFanout, PlanWithoutASourceRefusesToReleaseAFanoutStep) {
  Plan bare(*study_->graph);
  auto c = store_->commit(propose_, 0, Outcome::kSuccess, 0);
  ASSERT_TRUE(c.ok());
  auto r = bare.after_commit(propose_, 0, *c, *store_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_NE(r.error().message.find("samples_from"), std::string::npos);
}

}  // namespace
}  // namespace merlin
