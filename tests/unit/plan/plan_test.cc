// Plan: which messages a study start, a commit or a restart makes ready. Pure decisions read
// from a LocalStateStore; nothing is queued here.
#include "merlin/core/plan/plan.h"

#include <gtest/gtest.h>

#include "adapters/broker/local/local_state_store.h"
#include "tests/fakes/test_study.h"

namespace merlin {
namespace {
using testing::make_study;

// A(sampled) → B(sampled, per sample) → C(unsampled, after all of B).
constexpr const char* kChain = R"Y(
description: {name: chain, description: d}
study:
  - name: A
    description: d
    run:
      cmd: echo $(MERLIN_SAMPLE_ID)
      task_queue: qa
  - name: B
    description: d
    run:
      cmd: echo $(V)
      depends: [A]
      task_queue: qb
  - name: C
    description: d
    run:
      cmd: echo done
      depends: [B]
      task_queue: qc
merlin:
  samples:
    file: samples.csv
    column_labels: [V]
)Y";

constexpr std::uint64_t kN = 10;

TaskMessage range(InstanceId instance, SampleId lo, SampleId hi, bool gated = false) {
  TaskMessage m;
  m.instance = instance;
  m.lo = lo;
  m.hi = hi;
  m.gated = gated;
  return m;
}

class PlanChain : public ::testing::Test {
 protected:
  void SetUp() override {
    study_ = make_study(kChain, kN);
    ASSERT_TRUE(study_);
    plan_ = std::make_unique<Plan>(*study_->graph);
    store_ = std::make_unique<LocalStateStore>(study_->counts());
    a_ = study_->instance("A");
    b_ = study_->instance("B");
    c_ = study_->instance("C");
  }

  // Commits `sample` of `instance` and returns what the plan releases.
  std::vector<Routed> commit(InstanceId instance, SampleId sample) {
    auto c = store_->commit(instance, sample, Outcome::kSuccess, 1.0);
    EXPECT_TRUE(c.ok());
    auto r = plan_->after_commit(instance, sample, *c, *store_);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : std::vector<Routed>{};
  }

  std::vector<Routed> start() {
    auto r = plan_->ready_at_start(*store_);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : std::vector<Routed>{};
  }

  bool runnable(const TaskMessage& m) {
    auto r = plan_->leaf_runnable(m, *store_);
    EXPECT_TRUE(r.ok());
    return r.ok() && *r;
  }

  std::unique_ptr<testing::TestStudy> study_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<LocalStateStore> store_;
  InstanceId a_, b_, c_;
};

TEST_F(PlanChain, StartQueuesOnlyTheRootsWholeRange) {
  auto ready = start();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].queue, "qa");
  EXPECT_EQ(ready[0].message, range(a_, 0, kN));
}

TEST_F(PlanChain, StartTwiceDoesNotQueueTheRootAgain) {
  EXPECT_EQ(start().size(), 1u);
  EXPECT_TRUE(start().empty()) << "claim_release guards the root too";
}

TEST_F(PlanChain, CommittingASampleOfAQueuesThatSampleOfB) {
  auto ready = commit(a_, 3);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].queue, "qb");
  EXPECT_EQ(ready[0].message, range(b_, 3, 4));
  EXPECT_TRUE(runnable(ready[0].message));
}

TEST_F(PlanChain, SamplesOfBFollowAInAnyOrder) {
  for (SampleId s : {7u, 0u, 9u, 4u}) {
    auto ready = commit(a_, s);
    ASSERT_EQ(ready.size(), 1u) << "sample " << s;
    EXPECT_EQ(ready[0].message, range(b_, s, s + 1));
  }
}

TEST_F(PlanChain, CompletingAReleasesNothingButTheLastSampleOfB) {
  for (SampleId s = 0; s < kN; ++s) {
    auto ready = commit(a_, s);
    ASSERT_EQ(ready.size(), 1u) << "only B's sample " << s << ", never C";
    EXPECT_EQ(ready[0].message.instance, b_);
  }
}

TEST_F(PlanChain, CIsReleasedOnceWhenTheLastSampleOfBCommits) {
  for (SampleId s = 0; s < kN; ++s) commit(a_, s);
  for (SampleId s = kN; s-- > 1;) EXPECT_TRUE(commit(b_, s).empty()) << "B sample " << s;
  auto ready = commit(b_, 0);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].queue, "qc");
  EXPECT_EQ(ready[0].message, range(c_, 0, 1));
  EXPECT_TRUE(commit(b_, 0).empty()) << "a duplicate of the last commit releases nothing";
}

// A worker died after its commit and before publishing: the redelivered leaf re-derives.
TEST_F(PlanChain, RedeliveredCommittedSampleQueuesItsPerSampleChildAgain) {
  ASSERT_EQ(commit(a_, 3).size(), 1u);  // the publish of B's sample 3 is "lost"
  auto again = plan_->after_redelivery(a_, 3, *store_);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].queue, "qb");
  EXPECT_EQ((*again)[0].message, range(b_, 3, 4));
}

TEST_F(PlanChain, RedeliveredLastSampleReleasesTheWholeChildDespiteTheClaim) {
  for (SampleId s = 0; s < kN; ++s) commit(a_, s);
  for (SampleId s = 0; s < kN; ++s) commit(b_, s);  // C claimed and "lost" with its worker
  auto again = plan_->after_redelivery(b_, kN - 1, *store_);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].message, range(c_, 0, 1));
}

TEST_F(PlanChain, RedeliveryBeforeTheParentCompletesReleasesNoWholeChild) {
  for (SampleId s = 0; s < kN; ++s) commit(a_, s);
  commit(b_, 2);
  auto again = plan_->after_redelivery(b_, 2, *store_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty()) << "B is not complete: C is not ready";
}

TEST_F(PlanChain, RedeliveryAfterTheChildCompletedQueuesNothing) {
  for (SampleId s = 0; s < kN; ++s) commit(a_, s);
  for (SampleId s = 0; s < kN; ++s) commit(b_, s);
  commit(c_, 0);
  auto again = plan_->after_redelivery(b_, 0, *store_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
}

TEST_F(PlanChain, DuplicateCommitReleasesNothing) {
  ASSERT_EQ(commit(a_, 3).size(), 1u);
  auto again = store_->commit(a_, 3, Outcome::kSuccess, 1.0);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->newly_done);
  auto ready = plan_->after_commit(a_, 3, *again, *store_);
  ASSERT_TRUE(ready.ok());
  EXPECT_TRUE(ready->empty());
}

TEST_F(PlanChain, FailedSamplesCountAsDoneForDependents) {
  auto c = store_->commit(a_, 5, Outcome::kSoftFail, 0);
  ASSERT_TRUE(c.ok());
  auto ready = plan_->after_commit(a_, 5, *c, *store_);
  ASSERT_TRUE(ready.ok());
  ASSERT_EQ(ready->size(), 1u);
  EXPECT_EQ((*ready)[0].message, range(b_, 5, 6));
}

TEST_F(PlanChain, LeafOfADoneSampleIsNotRunnable) {
  EXPECT_TRUE(runnable(range(a_, 2, 3)));
  commit(a_, 2);
  EXPECT_FALSE(runnable(range(a_, 2, 3))) << "a redelivered leaf is skipped";
}

TEST_F(PlanChain, GatedLeafWaitsForItsParentSample) {
  EXPECT_FALSE(runnable(range(b_, 4, 5, /*gated=*/true)));
  commit(a_, 4);
  EXPECT_TRUE(runnable(range(b_, 4, 5, /*gated=*/true)));
  EXPECT_TRUE(runnable(range(b_, 6, 7, /*gated=*/false))) << "ungated leaves do not check";
}

TEST_F(PlanChain, RestartWithAPartlyDoneReleasesBGated) {
  for (SampleId s = 0; s < 5; ++s) store_->restore(a_, s, Outcome::kSuccess, 1.0);
  auto ready = start();
  ASSERT_EQ(ready.size(), 2u);
  EXPECT_EQ(ready[0].message, range(a_, 0, kN));
  EXPECT_EQ(ready[1].queue, "qb");
  EXPECT_EQ(ready[1].message, range(b_, 0, kN, /*gated=*/true));
  // Leaves of A skip what the journal says is done; B's gated leaves run only after A's sample.
  EXPECT_FALSE(runnable(range(a_, 2, 3)));
  EXPECT_TRUE(runnable(range(a_, 7, 8)));
  EXPECT_TRUE(runnable(range(b_, 3, 4, true)));
  EXPECT_FALSE(runnable(range(b_, 7, 8, true)));
}

TEST_F(PlanChain, RestartRequeuesOnlyUnfinishedInstances) {
  for (SampleId s = 0; s < kN; ++s) store_->restore(a_, s, Outcome::kSuccess, 1.0);
  for (SampleId s = 0; s < 6; ++s) store_->restore(b_, s, Outcome::kSuccess, 1.0);
  auto ready = start();
  ASSERT_EQ(ready.size(), 1u) << "A is complete; C waits for B";
  EXPECT_EQ(ready[0].message, range(b_, 0, kN, /*gated=*/true));
  EXPECT_FALSE(runnable(range(b_, 5, 6, true))) << "done before the restart";
  EXPECT_TRUE(runnable(range(b_, 6, 7, true)));
}

TEST_F(PlanChain, RestartAfterBCompletedQueuesOnlyC) {
  for (SampleId s = 0; s < kN; ++s) {
    store_->restore(a_, s, Outcome::kSuccess, 1.0);
    store_->restore(b_, s, Outcome::kSuccess, 1.0);
  }
  auto ready = start();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].message, range(c_, 0, 1));
}

TEST_F(PlanChain, RestartOfAFinishedStudyQueuesNothing) {
  for (SampleId s = 0; s < kN; ++s) {
    store_->restore(a_, s, Outcome::kSuccess, 1.0);
    store_->restore(b_, s, Outcome::kSuccess, 1.0);
  }
  store_->restore(c_, 0, Outcome::kSuccess, 1.0);
  EXPECT_TRUE(start().empty());
}

TEST_F(PlanChain, SplitKeepsEverythingButTheRange) {
  TaskMessage m = range(b_, 0, kN, /*gated=*/true);
  m.attempt = 2;
  m.kind = TaskKind::kRestart;
  auto parts = plan_->split(m);
  ASSERT_EQ(parts.size(), kN);
  for (SampleId s = 0; s < kN; ++s) {
    TaskMessage want = m;
    want.lo = s;
    want.hi = s + 1;
    EXPECT_EQ(parts[s], want);
  }
}

TEST_F(PlanChain, QueueIsTheStepsTaskQueue) {
  EXPECT_EQ(plan_->queue_of(a_), "qa");
  EXPECT_EQ(plan_->queue_of(b_), "qb");
  EXPECT_EQ(plan_->queue_of(c_), "qc");
}

// Funnel: every combination of `sim` must finish before `collect` runs, once.
constexpr const char* kFunnel = R"Y(
description: {name: funnel, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: sim
    description: d
    run: {cmd: echo $(X)}
  - name: collect
    description: d
    run:
      cmd: echo all
      depends: [sim_*]
)Y";

TEST(PlanFunnel, StartQueuesEveryCombinationOfTheRoot) {
  auto s = make_study(kFunnel);
  ASSERT_TRUE(s);
  Plan plan(*s->graph);
  LocalStateStore store(s->counts());
  auto ready = plan.ready_at_start(store);
  ASSERT_TRUE(ready.ok());
  ASSERT_EQ(ready->size(), 2u);
  EXPECT_EQ((*ready)[0].message, range(s->instance("sim", 0), 0, 1));
  EXPECT_EQ((*ready)[1].message, range(s->instance("sim", 1), 0, 1));
  EXPECT_EQ((*ready)[0].queue, "merlin") << "the default task queue";
}

TEST(PlanFunnel, ChildIsReleasedOnceAfterBothParentsComplete) {
  auto s = make_study(kFunnel);
  ASSERT_TRUE(s);
  Plan plan(*s->graph);
  LocalStateStore store(s->counts());
  InstanceId sim0 = s->instance("sim", 0), sim1 = s->instance("sim", 1);

  auto c0 = store.commit(sim0, 0, Outcome::kSuccess, 0);
  ASSERT_TRUE(c0.ok());
  auto first = plan.after_commit(sim0, 0, *c0, store);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->empty()) << "the other combination is still running";

  auto c1 = store.commit(sim1, 0, Outcome::kSuccess, 0);
  ASSERT_TRUE(c1.ok());
  auto second = plan.after_commit(sim1, 0, *c1, store);
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].message, range(s->instance("collect"), 0, 1));
}

TEST(PlanFunnel, ParentsCompletingTogetherReleaseTheChildOnce) {
  // Both commits land before either slot asks the plan: both see every parent complete, and
  // claim_release lets only one of them queue the child.
  auto s = make_study(kFunnel);
  ASSERT_TRUE(s);
  Plan plan(*s->graph);
  LocalStateStore store(s->counts());
  InstanceId sim0 = s->instance("sim", 0), sim1 = s->instance("sim", 1);
  auto c0 = store.commit(sim0, 0, Outcome::kSuccess, 0);
  auto c1 = store.commit(sim1, 0, Outcome::kSuccess, 0);
  ASSERT_TRUE(c0.ok() && c1.ok());
  auto r1 = plan.after_commit(sim1, 0, *c1, store);
  auto r0 = plan.after_commit(sim0, 0, *c0, store);
  ASSERT_TRUE(r0.ok() && r1.ok());
  EXPECT_EQ(r0->size() + r1->size(), 1u);
}

// A per-sample child with another, whole parent waits for that parent first.
constexpr const char* kMixedParents = R"Y(
description: {name: mixed, description: d}
study:
  - name: setup
    description: d
    run: {cmd: echo setup}
  - name: A
    description: d
    run: {cmd: echo $(MERLIN_SAMPLE_ID)}
  - name: B
    description: d
    run:
      cmd: echo $(MERLIN_SAMPLE_ID)
      depends: [A, setup]
merlin:
  samples:
    file: samples.csv
    column_labels: [V]
)Y";

TEST(PlanMixedParents, PerSampleChildWaitsForItsWholeParentThenRunsGated) {
  auto s = make_study(kMixedParents, 4);
  ASSERT_TRUE(s);
  Plan plan(*s->graph);
  LocalStateStore store(s->counts());
  InstanceId setup = s->instance("setup"), a = s->instance("A"), b = s->instance("B");

  auto c = store.commit(a, 1, Outcome::kSuccess, 0);
  ASSERT_TRUE(c.ok());
  auto early = plan.after_commit(a, 1, *c, store);
  ASSERT_TRUE(early.ok());
  EXPECT_TRUE(early->empty()) << "setup has not finished";

  c = store.commit(setup, 0, Outcome::kSuccess, 0);
  ASSERT_TRUE(c.ok());
  auto released = plan.after_commit(setup, 0, *c, store);
  ASSERT_TRUE(released.ok());
  ASSERT_EQ(released->size(), 1u);
  EXPECT_EQ((*released)[0].message, range(b, 0, 4, /*gated=*/true));
  // Sample 1 of A is done, so B's gated leaf 1 may run; leaf 2 waits for A's commit.
  EXPECT_TRUE(*plan.leaf_runnable(range(b, 1, 2, true), store));
  EXPECT_FALSE(*plan.leaf_runnable(range(b, 2, 3, true), store));

  c = store.commit(a, 2, Outcome::kSuccess, 0);
  ASSERT_TRUE(c.ok());
  auto later = plan.after_commit(a, 2, *c, store);
  ASSERT_TRUE(later.ok());
  ASSERT_EQ(later->size(), 1u);
  EXPECT_EQ((*later)[0].message, range(b, 2, 3));
}

// What Broker::finish may publish in the commit's own call: decided without the store.
TEST_F(PlanChain, FollowUpsOfASingleParentChildAreDecidedBeforeTheCommit) {
  auto a = plan_->follow_ups_before_commit(a_, 3);
  ASSERT_TRUE(a.has_value()) << "B's only parent is A";
  ASSERT_EQ(a->size(), 1u);
  EXPECT_EQ((*a)[0].message, range(b_, 3, 4));
  EXPECT_EQ((*a)[0].queue, "qb");
  EXPECT_FALSE(plan_->releases_when_complete(a_)) << "A has no whole child";

  auto b = plan_->follow_ups_before_commit(b_, 3);
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(b->empty()) << "C is a whole child: released at completion, not per sample";
  EXPECT_TRUE(plan_->releases_when_complete(b_));

  // The same as after_commit gives, sample by sample; at completion after_complete adds C once.
  for (SampleId s = 0; s < kN; ++s) {
    auto before = plan_->follow_ups_before_commit(a_, s);
    ASSERT_TRUE(before.has_value());
    auto after = commit(a_, s);
    ASSERT_EQ(after.size(), before->size());
    EXPECT_EQ(after[0].message, (*before)[0].message);
  }
  for (SampleId s = 0; s + 1 < kN; ++s) EXPECT_TRUE(commit(b_, s).empty());
  auto c = store_->commit(b_, kN - 1, Outcome::kSuccess, 1.0);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->remaining, 0u);
  auto whole = plan_->after_complete(b_, *store_);
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->size(), 1u);
  EXPECT_EQ((*whole)[0].message, range(c_, 0, 1));
  auto again = plan_->after_complete(b_, *store_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty()) << "released once (claim_release): a duplicate releases nothing";
}

TEST(PlanMixedParents, FollowUpsOfAChildWithOtherParentsAreLeftToAfterCommit) {
  auto s = make_study(kMixedParents, 4);
  ASSERT_TRUE(s);
  Plan plan(*s->graph);
  EXPECT_FALSE(plan.follow_ups_before_commit(s->instance("A"), 1).has_value())
      << "B also waits for setup: its readiness reads the store";
  auto setup = plan.follow_ups_before_commit(s->instance("setup"), 0);
  ASSERT_TRUE(setup.has_value()) << "setup has no per-sample child";
  EXPECT_TRUE(setup->empty());
  EXPECT_TRUE(plan.releases_when_complete(s->instance("setup")));
}

}  // namespace
}  // namespace merlin
