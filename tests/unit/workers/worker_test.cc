// The worker loop end to end in one process: LocalBroker + LocalStateStore + Plan, with a
// FakeExecutor standing in for the shell. Every concurrency test runs at 1, 2 and 4 slots, and
// every run is bounded in time (the worker exits by itself once nothing is pending).
#include "workers/worker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>

#include "adapters/broker/local/local_broker.h"
#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/plan/plan.h"
#include "tests/fakes/fake_executor.h"
#include "tests/fakes/test_study.h"

namespace merlin {
namespace {
using testing::FakeExecutor;
using testing::make_study;

constexpr auto kBound = std::chrono::seconds(30);

// A(sampled) → B(sampled), sample by sample. A has a restart command.
constexpr const char* kPipeline = R"Y(
description: {name: pipe, description: d}
study:
  - name: A
    description: d
    run:
      cmd: echo cmd $(MERLIN_SAMPLE_ID)
      restart: echo restart $(MERLIN_SAMPLE_ID)
      retry_delay: 0
      max_retries: 3
  - name: B
    description: d
    run:
      cmd: echo $(V)
      depends: [A]
      retry_delay: 0
merlin:
  samples:
    file: samples.csv
    column_labels: [V]
)Y";

// Two independent sampled steps on two queues.
constexpr const char* kTwoQueues = R"Y(
description: {name: twoq, description: d}
study:
  - name: bad
    description: d
    run:
      cmd: echo $(MERLIN_SAMPLE_ID)
      task_queue: qa
  - name: good
    description: d
    run:
      cmd: echo $(MERLIN_SAMPLE_ID)
      task_queue: qb
merlin:
  samples:
    file: samples.csv
    column_labels: [V]
)Y";

// Everything one worker run needs, wired as `merlin run --local` wires it.
class Harness {
 public:
  Harness(const char* yaml, std::uint64_t samples) : study_(make_study(yaml, samples)) {
    if (!study_) return;
    plan_ = std::make_unique<Plan>(*study_->graph);
    store_ = std::make_unique<LocalStateStore>(study_->counts());
  }
  bool ok() const { return study_ != nullptr; }

  /// Queues what a fresh (or restored) study starts with.
  void start() {
    auto ready = plan_->ready_at_start(*store_);
    ASSERT_TRUE(ready.ok()) << ready.error().message;
    for (const auto& r : *ready) ASSERT_TRUE(broker_.publish(r.queue, {r.message}).ok());
  }

  /// Runs a worker with `slots` slots until it exits, failing the test after kBound.
  Result<WorkerReport> run(int slots, std::vector<std::string> queues = {}) {
    WorkerOptions o;
    o.slots = slots;
    o.poll = std::chrono::milliseconds(5);
    o.queues = std::move(queues);
    Worker worker(broker_, *store_, *plan_, *study_->renderer, executor_, o);
    auto done = std::async(std::launch::async, [&worker] { return worker.run(); });
    if (done.wait_for(kBound) != std::future_status::ready) {
      ADD_FAILURE() << "the worker was still running after " << kBound.count() << " s";
      worker.request_stop();
    }
    return done.get();
  }

  InstanceProgress progress(const std::string& step, std::uint32_t combo = 0) {
    auto p = store_->progress();
    EXPECT_TRUE(p.ok());
    return p.ok() ? (*p)[study_->instance(step, combo).v] : InstanceProgress{};
  }
  std::uint64_t pending(const std::vector<std::string>& queues) {
    auto p = broker_.pending(queues);
    EXPECT_TRUE(p.ok());
    return p.ok() ? *p : 0;
  }
  TaskMessage leaf(const std::string& step, SampleId s) const {
    TaskMessage m;
    m.instance = study_->instance(step);
    m.lo = s;
    m.hi = s + 1;
    return m;
  }

  testing::TestStudy& study() { return *study_; }
  LocalBroker& broker() { return broker_; }
  LocalStateStore& store() { return *store_; }
  FakeExecutor& executor() { return executor_; }

 private:
  std::unique_ptr<testing::TestStudy> study_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<LocalStateStore> store_;
  LocalBroker broker_;
  FakeExecutor executor_;
};

class WorkerSlots : public ::testing::TestWithParam<int> {};

TEST_P(WorkerSlots, EverySampleOfAPipelinedStudyRunsOnceAndCommits) {
  constexpr std::uint64_t kN = 200;
  Harness h(kPipeline, kN);
  ASSERT_TRUE(h.ok());
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;

  auto counts = h.executor().run_counts();
  EXPECT_EQ(counts.size(), 2 * kN);
  for (const auto& [task, n] : counts)
    EXPECT_EQ(n, 1) << task.first << " sample " << task.second << " ran " << n << " times";
  EXPECT_EQ(h.progress("A").done, kN);
  EXPECT_EQ(h.progress("B").done, kN);
  EXPECT_EQ(h.progress("A").failed + h.progress("B").failed, 0u);
  EXPECT_EQ(report->executed, 2 * kN);
  EXPECT_EQ(report->succeeded, 2 * kN);
  EXPECT_EQ(report->failed, 0u);
  EXPECT_EQ(report->skipped, 0u);
  EXPECT_GT(report->splits, 0u) << "the 200-sample range was split by the worker";
  EXPECT_EQ(h.executor().finished().size(), 2 * kN) << "a MERLIN_FINISHED marker per task";
  EXPECT_EQ(h.pending({"merlin"}), 0u);
  EXPECT_EQ(h.broker().reserved(), 0u);
}

TEST_P(WorkerSlots, SampleOfBRunsAfterTheSameSampleOfA) {
  constexpr std::uint64_t kN = 60;
  Harness h(kPipeline, kN);
  ASSERT_TRUE(h.ok());
  h.start();
  ASSERT_TRUE(h.run(GetParam()).ok());
  auto calls = h.executor().calls();
  std::map<std::pair<std::string, std::uint64_t>, std::size_t> at;
  for (std::size_t i = 0; i < calls.size(); ++i) at[{calls[i].name, calls[i].sample}] = i;
  for (std::uint64_t s = 0; s < kN; ++s) {
    ASSERT_TRUE(at.count({"A", s}) && at.count({"B", s})) << "sample " << s;
    EXPECT_LT((at[{"A", s}]), (at[{"B", s}])) << "sample " << s;
  }
}

TEST_P(WorkerSlots, RetryCodeRequeuesTheTaskUntilItSucceeds) {
  Harness h(kPipeline, 20);
  ASSERT_TRUE(h.ok());
  h.executor().script("B", 7, {104, 104});
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  auto runs = h.executor().calls_of("B", 7);
  ASSERT_EQ(runs.size(), 3u);
  for (const auto& r : runs) EXPECT_EQ(r.kind, TaskKind::kCmd);
  EXPECT_EQ(report->requeued, 2u);
  EXPECT_EQ(h.progress("B").done, 20u);
  EXPECT_EQ(h.progress("B").failed, 0u);
  EXPECT_EQ(h.pending({"merlin"}), 0u);
}

TEST_P(WorkerSlots, RestartCodeRunsTheRestartCommandNext) {
  Harness h(kPipeline, 20);
  ASSERT_TRUE(h.ok());
  h.executor().script("A", 2, {100});
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  auto runs = h.executor().calls_of("A", 2);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].kind, TaskKind::kCmd);
  EXPECT_EQ(runs[0].script_text, "#!/bin/bash\n\necho cmd 2\n");
  EXPECT_EQ(runs[1].kind, TaskKind::kRestart);
  EXPECT_EQ(runs[1].script_text, "#!/bin/bash\n\necho restart 2\n");
  EXPECT_EQ(h.executor().calls_of("B", 2).size(), 1u) << "B waits for the restarted sample";
  EXPECT_EQ(h.progress("A").done, 20u);
  EXPECT_EQ(h.progress("A").failed, 0u);
}

TEST_P(WorkerSlots, RetriesStopAtMaxRetriesWithASoftFailure) {
  Harness h(kPipeline, 10);
  ASSERT_TRUE(h.ok());
  h.executor().script("A", 4, {104, 104, 104, 104, 104, 104});  // max_retries: 3
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(h.executor().calls_of("A", 4).size(), 4u) << "the first run and three retries";
  EXPECT_EQ(h.progress("A").done, 10u);
  EXPECT_EQ(h.progress("A").failed, 1u);
  EXPECT_EQ(report->failed, 1u);
  EXPECT_EQ(h.executor().calls_of("B", 4).size(), 1u) << "a soft failure does not block B";
}

TEST_P(WorkerSlots, ATimedOutStepWithARestartCommandRunsItNext) {
  Harness h(kPipeline, 10);
  ASSERT_TRUE(h.ok());
  h.executor().script("A", 3, {FakeExecutor::kTimedOut});
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  auto runs = h.executor().calls_of("A", 3);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].kind, TaskKind::kRestart);
  EXPECT_EQ(h.progress("A").done, 10u);
  EXPECT_EQ(h.progress("A").failed, 0u);
}

TEST_P(WorkerSlots, ATimedOutStepWithoutARestartCommandFailsAndDependentsGoOn) {
  Harness h(kPipeline, 10);
  ASSERT_TRUE(h.ok());
  h.executor().script("B", 5, {FakeExecutor::kTimedOut});  // B has no restart command
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(h.executor().calls_of("B", 5).size(), 1u) << "not run again (143 alone would be)";
  EXPECT_EQ(h.progress("B").done, 10u);
  EXPECT_EQ(h.progress("B").failed, 1u);
  EXPECT_EQ(report->failed, 1u);
}

TEST_P(WorkerSlots, AFullDiskStopsTheWorkerAndCommitsNothingForTheTask) {
  Harness h(kPipeline, 10);
  ASSERT_TRUE(h.ok());
  h.executor().script("A", 4, {FakeExecutor::kNoSpace});
  h.start();
  auto report = h.run(GetParam());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code, ErrorCode::kNoSpace);
  EXPECT_NE(report.error().message.find("No space left on device"), std::string::npos);
  auto done = h.store().is_done(h.study().instance("A"), 4);
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(*done) << "recorded neither done nor failed";
  EXPECT_EQ(h.progress("A").failed, 0u);
  EXPECT_GT(h.pending({"merlin"}), 0u) << "the task went back to its queue";
  // Space is back: another worker finishes the study, running sample 4 again.
  auto again = h.run(GetParam());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(h.executor().calls_of("A", 4).size(), 2u);
  EXPECT_EQ(h.progress("A").done, 10u);
  EXPECT_EQ(h.progress("B").done, 10u);
  EXPECT_EQ(h.progress("A").failed, 0u);
}

TEST_P(WorkerSlots, HardFailStopsThatQueueWhileTheOtherQueueFinishes) {
  const int slots = GetParam();
  Harness h(kTwoQueues, 10);
  ASSERT_TRUE(h.ok());
  h.executor().script_all("bad", 102);
  h.start();
  auto report = h.run(slots);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->stopped_queues, (std::set<std::string>{"qa"}));
  EXPECT_FALSE(report->stopped_by_step);
  EXPECT_GE(h.executor().count_of("bad"), 1u);
  EXPECT_LE(h.executor().count_of("bad"), static_cast<std::size_t>(slots))
      << "no slot starts a task of a stopped queue";
  EXPECT_EQ(h.executor().count_of("good"), 10u);
  EXPECT_EQ(h.progress("good").done, 10u);
  EXPECT_EQ(h.progress("bad").failed, h.progress("bad").done);
  EXPECT_GT(h.pending({"qa"}), 0u) << "the rest of the stopped queue stays queued";
  EXPECT_EQ(h.broker().reserved(), 0u);
}

TEST_P(WorkerSlots, StopWorkersCodeStopsTheWorkerWithTasksRemaining) {
  constexpr std::uint64_t kN = 50;
  Harness h(kPipeline, kN);
  ASSERT_TRUE(h.ok());
  h.executor().script("A", 0, {105});
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->stopped_by_step);
  EXPECT_EQ(h.executor().calls_of("A", 0).size(), 1u);
  EXPECT_TRUE(h.executor().calls_of("B", 0).empty()) << "released after the stop: not run";
  EXPECT_LT(h.executor().calls().size(), 2 * kN);
  EXPECT_GT(h.pending({"merlin"}), 0u) << "work is left for the next worker";
  EXPECT_EQ(h.broker().reserved(), 0u) << "unstarted reservations were handed back";
  EXPECT_TRUE(*h.store().is_done(h.study().instance("A"), 0)) << "the stopping task commits";
}

TEST_P(WorkerSlots, RedeliveredLeafOfADoneSampleIsSkipped) {
  Harness h(kPipeline, 10);
  ASSERT_TRUE(h.ok());
  // The first delivery committed, then its worker died before the ack: the leaf comes again.
  ASSERT_TRUE(h.store().commit(h.study().instance("A"), 5, Outcome::kSuccess, 1.0).ok());
  ASSERT_TRUE(h.broker().publish("merlin", {h.leaf("A", 5)}).ok());
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(h.executor().calls().empty());
  EXPECT_EQ(report->skipped, 1u);
  EXPECT_EQ(report->executed, 0u);
  EXPECT_EQ(h.pending({"merlin"}), 0u) << "the skipped leaf was acked";
}

TEST_P(WorkerSlots, DuplicateLeafCommitsOnce) {
  Harness h(kPipeline, 10);
  ASSERT_TRUE(h.ok());
  ASSERT_TRUE(h.broker().publish("merlin", {h.leaf("A", 3)}).ok());
  ASSERT_TRUE(h.broker().publish("merlin", {h.leaf("A", 3)}).ok());
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  auto runs = h.executor().calls_of("A", 3).size();
  EXPECT_GE(runs, 1u);
  EXPECT_EQ(runs + report->skipped, 2u) << "each copy either ran or was skipped";
  EXPECT_EQ(h.progress("A").done, 1u);
  EXPECT_EQ(h.executor().calls_of("B", 3).size(), 1u) << "dependents released once";
  if (GetParam() == 1) {
    EXPECT_EQ(runs, 1u) << "one slot: the second copy sees the commit";
  }
}

TEST_P(WorkerSlots, FunnelStepRunsOnceAfterEveryCombination) {
  Harness h(R"Y(
description: {name: fun, description: d}
global.parameters:
  X: {values: [1, 2, 3], label: X.%%}
study:
  - name: sim
    description: d
    run: {cmd: echo $(X) $(MERLIN_SAMPLE_ID)}
  - name: collect
    description: d
    run:
      cmd: echo all
      depends: [sim_*]
merlin:
  samples:
    file: samples.csv
    column_labels: [V]
)Y",
            30);
  ASSERT_TRUE(h.ok());
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  auto calls = h.executor().calls();
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back().name, "collect") << "collect runs last";
  EXPECT_EQ(h.executor().count_of("collect"), 1u);
  for (const char* sim : {"sim_X.1", "sim_X.2", "sim_X.3"})
    EXPECT_EQ(h.executor().count_of(sim), 30u) << sim;
}

TEST_P(WorkerSlots, RestartedStudyRunsOnlyWhatIsLeft) {
  constexpr std::uint64_t kN = 40;
  Harness h(kPipeline, kN);
  ASSERT_TRUE(h.ok());
  auto a = h.study().instance("A"), b = h.study().instance("B");
  for (SampleId s = 0; s < kN; ++s) h.store().restore(a, s, Outcome::kSuccess, 1.0);
  for (SampleId s = 0; s < kN; s += 2) h.store().restore(b, s, Outcome::kSuccess, 1.0);
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(h.executor().count_of("A"), 0u);
  EXPECT_EQ(h.executor().count_of("B"), kN / 2);
  for (const auto& c : h.executor().calls()) EXPECT_EQ(c.sample % 2, 1u) << "odd samples only";
  EXPECT_EQ(h.progress("B").done, kN);
}

TEST_P(WorkerSlots, RestartWithAPartlyDoneParentRunsEveryRemainingSample) {
  // B is released gated at start; its leaves for samples A has not done are dropped and come
  // back when A commits them. No sample is lost; one may run twice, but commits once.
  constexpr std::uint64_t kN = 40;
  Harness h(kPipeline, kN);
  ASSERT_TRUE(h.ok());
  auto a = h.study().instance("A");
  for (SampleId s = 0; s < kN / 2; ++s) h.store().restore(a, s, Outcome::kSuccess, 1.0);
  h.start();
  auto report = h.run(GetParam());
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(h.executor().count_of("A"), kN / 2);
  for (SampleId s = 0; s < kN; ++s) {
    auto runs = h.executor().calls_of("B", s).size();
    EXPECT_GE(runs, 1u) << "B sample " << s;
    EXPECT_LE(runs, 2u) << "B sample " << s;
  }
  EXPECT_EQ(h.progress("A").done, kN);
  EXPECT_EQ(h.progress("B").done, kN);
  EXPECT_EQ(h.pending({"merlin"}), 0u);
}

INSTANTIATE_TEST_SUITE_P(Slots, WorkerSlots, ::testing::Values(1, 2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "slots"; });

TEST(Worker, ServesOnlyTheQueuesItIsGiven) {
  Harness h(kTwoQueues, 5);
  ASSERT_TRUE(h.ok());
  h.start();
  auto report = h.run(2, {"qb"});
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(h.executor().count_of("bad"), 0u);
  EXPECT_EQ(h.executor().count_of("good"), 5u);
  EXPECT_GT(h.pending({"qa"}), 0u);
}

TEST(Worker, ExitsAtOnceWhenNothingIsQueued) {
  Harness h(kPipeline, 5);
  ASSERT_TRUE(h.ok());
  auto report = h.run(4);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->executed, 0u);
}

// A broker that flags every delivery of chosen messages as redelivered (taken over from a
// worker that died) `times` over, over the in-process one.
class RedeliveringBroker : public Broker {
 public:
  explicit RedeliveringBroker(LocalBroker& inner) : inner_(inner) {}
  std::vector<TaskMessage> flagged;
  std::uint32_t times = 2;

  Result<void> publish(const std::string& q, const std::vector<TaskMessage>& m) override {
    return inner_.publish(q, m);
  }
  Result<void> publish_at(const std::string& q, const TaskMessage& m, Clock::time_point t) override {
    return inner_.publish_at(q, m, t);
  }
  Result<std::optional<Delivery>> reserve(const std::vector<std::string>& q,
                                          std::chrono::milliseconds wait) override {
    auto d = inner_.reserve(q, wait);
    if (d.ok() && d->has_value()) {
      (*d)->redelivered = std::find(flagged.begin(), flagged.end(), (*d)->message) != flagged.end();
      (*d)->deliveries = (*d)->redelivered ? times : 1;
    }
    return d;
  }
  Result<void> ack(const Delivery& d) override { return inner_.ack(d); }
  Result<void> release(const Delivery& d) override { return inner_.release(d); }
  Result<std::uint64_t> pending(const std::vector<std::string>& q) override {
    return inner_.pending(q);
  }

 private:
  LocalBroker& inner_;
};

// A worker committed A's sample 2 and died before queueing B's sample 2; its message comes
// back redelivered: A is not run again, B's sample 2 is queued and runs once.
TEST(WorkerRedelivery, CommittedLeafRedeliveredQueuesItsLostFollowUp) {
  auto study = make_study(kPipeline, 5);
  ASSERT_TRUE(study);
  Plan plan(*study->graph);
  LocalStateStore store(study->counts());
  LocalBroker local;
  RedeliveringBroker broker(local);
  FakeExecutor executor;
  InstanceId a = study->instance("A"), b = study->instance("B");
  ASSERT_TRUE(store.commit(a, 2, Outcome::kSuccess, 0.1).ok());  // the lost worker's commit
  ASSERT_TRUE(store.claim_release(a).ok());
  TaskMessage lost;
  lost.instance = a;
  lost.lo = 2;
  lost.hi = 3;
  broker.flagged = {lost};
  std::vector<TaskMessage> rest;
  for (SampleId s : {0u, 1u, 3u, 4u}) {
    TaskMessage m = lost;
    m.lo = s;
    m.hi = s + 1;
    rest.push_back(m);
  }
  rest.push_back(lost);
  ASSERT_TRUE(broker.publish("merlin", rest).ok());
  WorkerOptions o;
  o.poll = std::chrono::milliseconds(5);
  Worker worker(broker, store, plan, *study->renderer, executor, o);
  auto report = worker.run();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(executor.calls_of("A", 2).empty()) << "committed already: not run again";
  EXPECT_EQ(executor.calls_of("B", 2).size(), 1u) << "the follow-up its first run lost";
  auto p = store.progress();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[b.v].done, 5u);
  EXPECT_EQ(report->skipped, 1u);
}

// Every worker that took A's sample 1 died on it (11 deliveries, cap 10): it is not run again
// but recorded as failed, and B's sample 1 (its dependent) still runs, so the study ends.
TEST(WorkerRedelivery, TaskDeliveredPastTheCapIsGivenUpAsFailed) {
  auto study = make_study(kPipeline, 3);
  ASSERT_TRUE(study);
  Plan plan(*study->graph);
  LocalStateStore store(study->counts());
  LocalBroker local;
  RedeliveringBroker broker(local);
  FakeExecutor executor;
  InstanceId a = study->instance("A"), b = study->instance("B");
  TaskMessage poison;
  poison.instance = a;
  poison.lo = 1;
  poison.hi = 2;
  broker.flagged = {poison};
  broker.times = 11;  // at 10 (the cap) it would still run
  std::vector<TaskMessage> all;
  for (SampleId s : {0u, 1u, 2u}) {
    TaskMessage m = poison;
    m.lo = s;
    m.hi = s + 1;
    all.push_back(m);
  }
  ASSERT_TRUE(broker.publish("merlin", all).ok());
  WorkerOptions o;
  o.poll = std::chrono::milliseconds(5);
  Worker worker(broker, store, plan, *study->renderer, executor, o);
  auto report = worker.run();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(executor.calls_of("A", 1).empty()) << "given up: not run";
  EXPECT_EQ(executor.calls_of("B", 1).size(), 1u) << "its dependent still runs";
  auto p = store.progress();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[a.v].done, 3u);
  EXPECT_EQ((*p)[a.v].failed, 1u);
  EXPECT_EQ((*p)[b.v].done, 3u);
  EXPECT_EQ(report->failed, 1u);
}

}  // namespace
}  // namespace merlin
