// The worker with steps in node-local scratch, on a FakeStager: a slot goes on to its next
// task while the stager copies, a sample commits only after its outputs are staged, and
// staging errors and a task's own scratch problem fail the sample instead of committing it as a
// success; a scratch unusable on the node hands the task back (item 11 of issue #25).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>

#include "adapters/broker/local/local_broker.h"
#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/plan/plan.h"
#include "tests/fakes/fake_executor.h"
#include "tests/fakes/fake_stager.h"
#include "tests/fakes/test_study.h"
#include "workers/worker.h"

namespace merlin {
namespace {
using testing::FakeExecutor;
using testing::FakeStager;
using testing::make_study;

constexpr auto kBound = std::chrono::seconds(30);

constexpr const char* kScratchStudy = R"Y(
description: {name: staged, description: d}
study:
  - name: sim
    description: d
    run:
      cmd: run $(V) > $(MERLIN_SCRATCH)/out.txt
      scratch: auto
      stage_out: [out.txt]
      max_retries: 2
      retry_delay: 0
merlin:
  samples:
    file: samples.csv
    column_labels: [V]
)Y";

// The local broker, counting lease renewals per sample.
class RenewalCountingBroker : public LocalBroker {
 public:
  Result<bool> extend_lease(const Delivery& d) override {
    std::lock_guard lock(mu_);
    renewals_[d.message.lo]++;
    cv_.notify_all();
    return LocalBroker::extend_lease(d);
  }
  int renewals(SampleId s) {
    std::lock_guard lock(mu_);
    return renewals_[s];
  }
  /// Waits (at most `bound`) until sample `s` has had more than `n` renewals.
  bool wait_renewals_above(SampleId s, int n, std::chrono::seconds bound) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, bound, [&] { return renewals_[s] > n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<SampleId, int> renewals_;
};

class StagingHarness {
 public:
  StagingHarness(std::uint64_t samples) : study_(make_study(kScratchStudy, samples)) {
    if (!study_) return;
    plan_ = std::make_unique<Plan>(*study_->graph);
    store_ = std::make_unique<LocalStateStore>(study_->counts());
    auto ready = plan_->ready_at_start(*store_);
    EXPECT_TRUE(ready.ok());
    if (ready.ok()) {
      for (const auto& r : *ready) EXPECT_TRUE(broker_.publish(r.queue, {r.message}).ok());
    }
  }
  bool ok() const { return study_ != nullptr; }

  /// Starts a worker with `slots` slots on the fake stager; get() the future for its report.
  std::future<Result<WorkerReport>> start(
      int slots, std::chrono::milliseconds renewal = std::chrono::milliseconds(20'000),
      std::chrono::milliseconds scratch_retry = std::chrono::milliseconds(0),
      Worker::Now now = [] { return Clock::now(); }) {
    WorkerOptions o;
    o.lease_renewal = renewal;
    o.slots = slots;
    o.poll = std::chrono::milliseconds(5);
    o.stager = &stager_;
    o.scratch_retry = scratch_retry;
    worker_ = std::make_unique<Worker>(broker_, *store_, *plan_, *study_->renderer, executor_, o,
                                       std::move(now));
    return std::async(std::launch::async, [this] { return worker_->run(); });
  }
  Result<WorkerReport> finish(std::future<Result<WorkerReport>>& f) {
    if (f.wait_for(kBound) != std::future_status::ready) {
      ADD_FAILURE() << "the worker was still running after " << kBound.count() << " s";
      stager_.release();
      worker_->request_stop();
    }
    return f.get();
  }
  bool done(SampleId s) {
    auto d = store_->is_done(study_->instance("sim"), s);
    return d.ok() && *d;
  }
  InstanceProgress progress() {
    auto p = store_->progress();
    return p.ok() ? (*p)[study_->instance("sim").v] : InstanceProgress{};
  }

  FakeStager& stager() { return stager_; }
  FakeExecutor& executor() { return executor_; }
  RenewalCountingBroker& broker() { return broker_; }
  Worker& worker() { return *worker_; }

 private:
  std::unique_ptr<testing::TestStudy> study_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<LocalStateStore> store_;
  RenewalCountingBroker broker_;
  FakeExecutor executor_;
  FakeStager stager_;
  std::unique_ptr<Worker> worker_;
};

TEST(WorkerStaging, TheSlotTakesItsNextTaskWhileStagingWaitsAndCommitsOnlyAfterIt) {
  StagingHarness h(2);
  ASSERT_TRUE(h.ok());
  h.stager().hold();
  auto run = h.start(1);
  // One slot: the second sample is prepared (reserved and about to run) while the first
  // one's staging is still held.
  ASSERT_TRUE(h.stager().wait_started(1, kBound));
  ASSERT_TRUE(h.stager().wait_prepared(2, kBound));
  EXPECT_FALSE(h.done(0)) << "committed before its outputs were staged";
  EXPECT_FALSE(h.done(1));
  EXPECT_TRUE(h.executor().finished().empty()) << "MERLIN_FINISHED before staging";
  h.stager().release();
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(h.done(0));
  EXPECT_TRUE(h.done(1));
  EXPECT_EQ(report->staged, 2u);
  EXPECT_EQ(report->succeeded, 2u);
  EXPECT_EQ(h.stager().cleaned().size(), 2u);
  EXPECT_EQ(h.executor().finished().size(), 2u);
  EXPECT_EQ(h.broker().reserved(), 0u);
}

class WorkerStagingSlots : public ::testing::TestWithParam<int> {};

TEST_P(WorkerStagingSlots, EverySampleIsStagedOnceThenCommitted) {
  constexpr std::uint64_t kN = 120;
  StagingHarness h(kN);
  ASSERT_TRUE(h.ok());
  auto run = h.start(GetParam());
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  auto staged = h.stager().staged();
  std::sort(staged.begin(), staged.end());
  ASSERT_EQ(staged.size(), kN);
  for (std::uint64_t s = 0; s < kN; ++s) EXPECT_EQ(staged[s], s);
  EXPECT_EQ(h.progress().done, kN);
  EXPECT_EQ(h.progress().failed, 0u);
  EXPECT_EQ(report->staged, kN);
}

INSTANTIATE_TEST_SUITE_P(Slots, WorkerStagingSlots, ::testing::Values(1, 2, 4));

TEST(WorkerStaging, AStagingErrorFailsTheSampleInsteadOfCommittingASuccess) {
  StagingHarness h(3);
  ASSERT_TRUE(h.ok());
  h.stager().fail_stage_out(1);
  auto run = h.start(2);
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(h.progress().done, 3u);
  EXPECT_EQ(h.progress().failed, 1u);
  EXPECT_EQ(report->staging_failed, 1u);
  EXPECT_EQ(report->succeeded, 2u);
  auto cleaned = h.stager().cleaned();
  EXPECT_EQ(std::count(cleaned.begin(), cleaned.end(), 1u), 0) << "scratch kept for inspection";
  for (const auto& f : h.executor().finished()) EXPECT_NE(f.sample, 1u);
}

TEST(WorkerStaging, ASucceededStepIsRecordedBeforeItsStagingAndTheRecordGoesWithItsScratch) {
  StagingHarness h(2);
  ASSERT_TRUE(h.ok());
  h.stager().fail_stage_out(1);
  auto run = h.start(1);
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  // Sample 0 staged: its record stays in the fake (the real one goes with the scratch dir,
  // removed by clean); sample 1's staging failed: its record is dropped, so a retry runs it.
  EXPECT_TRUE(h.stager().has_success_record(0));
  EXPECT_FALSE(h.stager().has_success_record(1));
  EXPECT_EQ(report->restaged, 0u);
}

TEST(WorkerStaging, AStepThatSucceededBeforeItsWorkerDiedIsStagedNotRunAgain) {
  StagingHarness h(3);
  ASSERT_TRUE(h.ok());
  h.stager().leave_success_record(1, 12.5);
  auto run = h.start(1);
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(h.executor().calls_of("sim", 1).empty()) << "the step is not run again";
  EXPECT_EQ(h.executor().calls_of("sim", 0).size(), 1u);
  auto prepared = h.stager().prepared();
  EXPECT_EQ(std::count(prepared.begin(), prepared.end(), 1u), 0) << "its scratch is kept";
  auto staged = h.stager().staged();
  EXPECT_EQ(std::count(staged.begin(), staged.end(), 1u), 1);
  EXPECT_EQ(report->restaged, 1u);
  EXPECT_EQ(report->staged, 3u);
  EXPECT_EQ(report->succeeded, 3u);
  EXPECT_EQ(h.progress().done, 3u);
  EXPECT_EQ(h.progress().failed, 0u);
  bool finished1 = false;
  for (const auto& f : h.executor().finished()) finished1 |= f.sample == 1u;
  EXPECT_TRUE(finished1) << "MERLIN_FINISHED written after the staging, as for a run";
}

TEST(WorkerStaging, AReStagingThatFailsFailsTheSampleAndForgetsTheRecord) {
  StagingHarness h(2);
  ASSERT_TRUE(h.ok());
  h.stager().leave_success_record(0, 1.0);
  h.stager().fail_stage_out(0);
  auto run = h.start(1);
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(h.executor().calls_of("sim", 0).empty());
  EXPECT_EQ(h.progress().failed, 1u);
  EXPECT_FALSE(h.stager().has_success_record(0)) << "a restart runs the step";
}

TEST(WorkerStaging, AProblemOfTheTasksOwnScratchFailsTheSampleWithoutRunningIt) {
  // A stage_in file missing (kRuntime): that sample fails, the others run.
  StagingHarness h(3);
  ASSERT_TRUE(h.ok());
  h.stager().fail_prepare(2);
  auto run = h.start(1);
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(h.executor().calls_of("sim", 2).empty());
  EXPECT_EQ(h.progress().failed, 1u);
  EXPECT_EQ(report->staging_failed, 1u);
  auto started = h.stager().started();
  EXPECT_EQ(std::count(started.begin(), started.end(), 2u), 0);
}

TEST(WorkerStaging, AFullScratchInALocalRunStopsOnceAndFailsNoSample) {
  // Issue #25 item 11: all 8 samples were failed within 0.2 s. With no other node to take
  // them, the worker stops at the first unusable scratch, with that error, and hands the
  // task back: nothing runs, nothing is recorded as failed, a restart runs them all.
  StagingHarness h(8);
  ASSERT_TRUE(h.ok());
  h.stager().fail_node_scratch(1000);
  auto run = h.start(1);
  auto report = h.finish(run);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code, ErrorCode::kNoSpace) << report.error().message;
  EXPECT_NE(report.error().message.find(".merlin-probe"), std::string::npos);
  EXPECT_EQ(h.stager().prepared().size(), 1u) << "took more tasks after the first refusal";
  EXPECT_EQ(h.progress().failed, 0u);
  EXPECT_EQ(h.progress().done, 0u);
  EXPECT_TRUE(h.executor().calls_of("sim", 0).empty());
  EXPECT_EQ(h.broker().reserved(), 0u) << "the task was not handed back";
  std::uint64_t waiting = 0;
  for (const auto& [q, n] : h.broker().depths()) waiting += n;
  EXPECT_GE(waiting, 1u) << "the refused task is not back in its queue";
}

TEST(WorkerStaging, AnUnusableScratchHandsTheTaskBackAndIsTriedAgainAfterABackoff) {
  // A distributed worker: the task goes back uncommitted, scratch tasks wait, and the probe
  // is retried after 5 s, then 10 s (doubled), by the worker's clock: a test clock that
  // moves 50 ms each time it is read, so nothing sleeps.
  StagingHarness h(3);
  ASSERT_TRUE(h.ok());
  h.stager().fail_node_scratch(2, ErrorCode::kUnavailable);
  std::mutex mu;
  auto t = Clock::time_point{} + std::chrono::hours(1);
  Worker::Now now = [&] {
    std::lock_guard lock(mu);
    return t += std::chrono::milliseconds(50);
  };
  std::vector<Clock::time_point> at;
  h.stager().on_prepare([&](std::uint64_t) {
    std::lock_guard lock(mu);
    at.push_back(t);
  });
  auto run = h.start(1, std::chrono::milliseconds(20'000), std::chrono::milliseconds(5'000), now);
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(h.progress().done, 3u);
  EXPECT_EQ(h.progress().failed, 0u) << "a task was failed for the node's scratch";
  EXPECT_EQ(report->staging_failed, 0u);
  EXPECT_EQ(report->succeeded, 3u);
  ASSERT_EQ(at.size(), 5u);  // two refused tries, then the three samples
  EXPECT_GE(at[1] - at[0], std::chrono::seconds(5));
  EXPECT_GE(at[2] - at[1], std::chrono::seconds(10)) << "the wait did not double";
  EXPECT_LT(at[2] - at[1], std::chrono::seconds(11));
}

TEST(WorkerStaging, AFailedStepIsNotStagedAndKeepsItsScratch) {
  StagingHarness h(3);
  ASSERT_TRUE(h.ok());
  h.executor().script("sim", 0, {101});     // soft fail
  h.executor().script("sim", 1, {104, 0});  // retried, then a success
  auto run = h.start(1);
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  auto staged = h.stager().staged();
  std::sort(staged.begin(), staged.end());
  EXPECT_EQ(staged, (std::vector<std::uint64_t>{1, 2}));
  auto cleaned = h.stager().cleaned();
  EXPECT_EQ(std::count(cleaned.begin(), cleaned.end(), 0u), 0);
  EXPECT_EQ(h.progress().failed, 1u);
  EXPECT_EQ(h.executor().calls_of("sim", 1).size(), 2u);
}

TEST(WorkerStaging, RunReturnsOnlyAfterStagingHasFinished) {
  StagingHarness h(4);
  ASSERT_TRUE(h.ok());
  h.stager().hold();
  auto run = h.start(1);
  ASSERT_TRUE(h.stager().wait_started(1, kBound));
  // run() may not return while staging is held: it is still running here.
  EXPECT_NE(run.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  h.stager().release();
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->staged, 4u);
  EXPECT_EQ(h.broker().reserved(), 0u);
}

TEST(WorkerStaging, ATaskWaitingForStagingKeepsItsLeaseRenewed) {
  StagingHarness h(3);
  ASSERT_TRUE(h.ok());
  h.stager().hold();
  auto run = h.start(1, std::chrono::milliseconds(1));
  ASSERT_TRUE(h.stager().wait_started(1, kBound));   // sample 0 in staging
  ASSERT_TRUE(h.stager().wait_prepared(2, kBound));  // its slot has moved on to sample 1
  const int before = h.broker().renewals(0);
  EXPECT_TRUE(h.broker().wait_renewals_above(0, before, kBound))
      << "the staged delivery's lease was not renewed after its slot moved on";
  h.stager().release();
  ASSERT_TRUE(h.finish(run).ok());
}

TEST(WorkerStaging, AbortFinishesTheStagingUnderWayAndReleasesTheQueuedOnes) {
  StagingHarness h(3);
  ASSERT_TRUE(h.ok());
  h.stager().hold();
  auto run = h.start(1);
  ASSERT_TRUE(h.stager().wait_started(1, kBound));   // sample 0 is being staged
  ASSERT_TRUE(h.stager().wait_prepared(3, kBound));  // samples 1 and 2 ran or run
  h.worker().abort();
  h.stager().release();
  auto report = h.finish(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(h.done(0)) << "the copy under way finishes and commits";
  EXPECT_FALSE(h.done(1)) << "queued for staging when aborted: handed back uncommitted";
  EXPECT_FALSE(h.done(2));
  EXPECT_EQ(h.stager().staged(), (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(h.broker().reserved(), 0u);
}

}  // namespace
}  // namespace merlin
