// Fencing on the worker's side (docs/distributed.md, "Fencing"): a task whose lease may have
// gone to another worker — the broker answers a renewal "not yours", no renewal got through for
// a whole lease, no heartbeat for --dead-after, or the broker refuses the commit — has its step
// ended and its delivery dropped: not committed, acked nor released by this worker. Leases
// renewed in time never fence. On the in-process broker with a step that runs until ended.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

#include "adapters/broker/local/local_broker.h"
#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/plan/plan.h"
#include "tests/fakes/one_step_study.h"
#include "tests/fakes/test_study.h"
#include "workers/lease_fence.h"
#include "workers/worker.h"

namespace merlin {
namespace {
using std::chrono::milliseconds;
using testing::kOneSampledStep;
using testing::make_study;

constexpr auto kBound = std::chrono::seconds(30);

// The step runs until end_run (the worker's fence, as a pruning would) or finish_all (the
// test): what a long simulation looks like to the worker.
class HeldExecutor : public StepExecutor {
 public:
  Result<void> prepare(const RenderedTask&) override { return ok(); }
  Result<ExecResult> run(const RenderedTask&) override {
    std::unique_lock lock(mu_);
    started_++;
    cv_.notify_all();
    cv_.wait(lock, [this] { return ended_ || finished_; });
    ExecResult r;
    if (ended_) {
      r.exit_code = 128 + SIGTERM;
      r.signal = SIGTERM;
    }
    return r;
  }
  Result<void> mark_finished(const RenderedTask&) override { return ok(); }
  bool end_run(InstanceId, std::uint64_t) override {
    std::lock_guard lock(mu_);
    if (started_ == 0) return false;
    ended_ = true;
    cv_.notify_all();
    return true;
  }
  void finish_all() {
    std::lock_guard lock(mu_);
    finished_ = true;
    cv_.notify_all();
  }
  bool wait_started(std::chrono::seconds bound) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, bound, [this] { return started_ > 0; });
  }
  bool wait_ended(std::chrono::seconds bound) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, bound, [this] { return ended_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int started_ = 0;
  bool ended_ = false, finished_ = false;
};

// The in-process broker with leases as a remote one answers them: renewals held, answered "not
// yours", or hanging (the broker cut off); a finish refused as fenced; acks and releases counted.
class LeasingBroker : public LocalBroker {
 public:
  enum class Renewal { kHeld, kTakenOver, kHangs };
  Renewal renewal = Renewal::kHeld;
  bool refuse_finish = false;

  Result<bool> extend_lease(const Delivery&) override {
    std::unique_lock lock(mu_);
    renewals_++;
    cv_.notify_all();
    if (renewal == Renewal::kHangs) cv_.wait(lock, [this] { return healed_; });
    return renewal != Renewal::kTakenOver;
  }
  Result<FinishResult> finish(const Delivery& d, const FinishRequest& r,
                              StateStore& store) override {
    if (!refuse_finish) return LocalBroker::finish(d, r, store);
    FinishResult f;
    f.fenced = true;
    return f;
  }
  Result<void> ack(const Delivery& d) override {
    {
      std::lock_guard lock(mu_);
      acks_++;
    }
    return LocalBroker::ack(d);
  }
  Result<void> release(const Delivery& d) override {
    {
      std::lock_guard lock(mu_);
      releases_++;
    }
    return LocalBroker::release(d);
  }
  void heal() {
    std::lock_guard lock(mu_);
    healed_ = true;
    cv_.notify_all();
  }
  bool wait_renewals(int n, std::chrono::seconds bound) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, bound, [&] { return renewals_ >= n; });
  }
  int acks() {
    std::lock_guard lock(mu_);
    return acks_;
  }
  int releases() {
    std::lock_guard lock(mu_);
    return releases_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int renewals_ = 0, acks_ = 0, releases_ = 0;
  bool healed_ = false;
};

class FenceHarness {
 public:
  FenceHarness() : study_(make_study(kOneSampledStep, 1)) {
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

  std::future<Result<WorkerReport>> start(LeaseTerms terms, milliseconds renewal,
                                          std::function<std::optional<Clock::time_point>()>
                                              last_beat = nullptr) {
    WorkerOptions o;
    o.slots = 1;
    o.poll = milliseconds(5);
    o.lease_renewal = renewal;
    o.fence = terms;
    o.last_beat = std::move(last_beat);
    worker_ = std::make_unique<Worker>(broker_, *store_, *plan_, *study_->renderer, executor_, o);
    return std::async(std::launch::async, [this] { return worker_->run(); });
  }
  // A fenced task stays reserved on the in-process broker (it has no leases to expire), so the
  // worker would wait for it: the test stops it once it has seen what it looks for.
  Result<WorkerReport> stop(std::future<Result<WorkerReport>>& f) {
    worker_->request_stop();
    broker_.heal();
    executor_.finish_all();
    if (f.wait_for(kBound) != std::future_status::ready) {
      ADD_FAILURE() << "the worker was still running after " << kBound.count() << " s";
      return Error::runtime("hung");
    }
    return f.get();
  }
  bool done() {
    auto d = store_->is_done(study_->instance("A"), 0);
    return d.ok() && *d;
  }

  LeasingBroker& broker() { return broker_; }
  HeldExecutor& executor() { return executor_; }

 private:
  std::unique_ptr<testing::TestStudy> study_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<LocalStateStore> store_;
  LeasingBroker broker_;
  HeldExecutor executor_;
  std::unique_ptr<Worker> worker_;
};

TEST(LeaseFence, LapsesAfterAWholeLeaseOrAQuietHeartbeatOnly) {
  const LeaseTerms terms{milliseconds(3000), milliseconds(1000)};
  const FenceClock::time_point t0{};
  EXPECT_FALSE(lease_lapsed(terms, t0 + milliseconds(2999), t0, t0 + milliseconds(2500)));
  EXPECT_TRUE(lease_lapsed(terms, t0 + milliseconds(3000), t0, t0 + milliseconds(2500)))
      << "no renewal answered for a whole lease";
  EXPECT_TRUE(lease_lapsed(terms, t0 + milliseconds(1000), t0, t0))
      << "no heartbeat recorded for dead_after: the broker may count the worker dead";
  EXPECT_FALSE(lease_lapsed(terms, t0 + milliseconds(1000), t0, std::nullopt))
      << "no heartbeat recorded at all: the broker counts no worker dead without one";
  EXPECT_FALSE(lease_lapsed({milliseconds(3000), milliseconds(0)}, t0 + milliseconds(2000), t0, t0))
      << "dead_after 0: heartbeats decide nothing";
  EXPECT_FALSE(lease_lapsed({}, t0 + std::chrono::hours(24), t0, t0)) << "no leases: never";
}

TEST(LeaseFence, LooksTenTimesPerShorterTermWithinBounds) {
  EXPECT_EQ(fence_check_interval({}), milliseconds(0));
  EXPECT_EQ(fence_check_interval({milliseconds(60'000), milliseconds(10'000)}), milliseconds(1000));
  EXPECT_EQ(fence_check_interval({milliseconds(3000), milliseconds(0)}), milliseconds(300));
  EXPECT_EQ(fence_check_interval({milliseconds(50), milliseconds(0)}), milliseconds(10));
}

TEST(WorkerFence, ARenewalAnsweredNotYoursEndsTheStepAndDropsTheTask) {
  FenceHarness h;
  ASSERT_TRUE(h.ok());
  h.broker().renewal = LeasingBroker::Renewal::kTakenOver;
  auto run = h.start({milliseconds(10'000), milliseconds(0)}, milliseconds(50));
  ASSERT_TRUE(h.executor().wait_started(kBound));
  ASSERT_TRUE(h.executor().wait_ended(kBound)) << "the step was not ended";
  auto report = h.stop(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->fenced, 1u);
  EXPECT_FALSE(h.done()) << "not committed: the other worker's run commits it";
  EXPECT_EQ(h.broker().acks(), 0) << "no ack";
  EXPECT_EQ(h.broker().releases(), 0) << "not released either: it is another worker's";
}

TEST(WorkerFence, AWorkerCutOffFromItsBrokerEndsTheStepOnceTheLeaseIsOut) {
  FenceHarness h;
  ASSERT_TRUE(h.ok());
  h.broker().renewal = LeasingBroker::Renewal::kHangs;  // every renewal hangs: cut off
  const milliseconds lease(400);
  const auto before = Clock::now();
  auto run = h.start({lease, milliseconds(0)}, milliseconds(50));
  ASSERT_TRUE(h.executor().wait_started(kBound));
  ASSERT_TRUE(h.executor().wait_ended(kBound)) << "the step ran on past its lease";
  EXPECT_GE(Clock::now() - before, lease) << "never before the whole lease has passed";
  auto report = h.stop(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->fenced, 1u);
  EXPECT_FALSE(h.done());
  EXPECT_EQ(h.broker().acks() + h.broker().releases(), 0) << "no broker call for the task";
}

TEST(WorkerFence, NoHeartbeatRecordedForDeadAfterEndsTheStep) {
  FenceHarness h;
  ASSERT_TRUE(h.ok());
  const auto beat = Clock::now();  // the one beat the broker recorded
  auto run = h.start({milliseconds(60'000), milliseconds(300)}, milliseconds(50),
                     [beat] { return std::optional<Clock::time_point>(beat); });
  ASSERT_TRUE(h.executor().wait_ended(kBound)) << "the step ran on with its worker counted dead";
  EXPECT_GE(Clock::now() - beat, milliseconds(300));
  auto report = h.stop(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->fenced, 1u);
  EXPECT_FALSE(h.done());
}

TEST(WorkerFence, LeasesRenewedInTimeNeverFence) {
  FenceHarness h;
  ASSERT_TRUE(h.ok());
  // A step of over two leases, renewed every 50 ms of a 1.5 s lease (a margin for sanitized
  // runs on loaded cores); no beat recorded, so dead_after decides nothing.
  auto run = h.start({milliseconds(1500), milliseconds(300)}, milliseconds(50),
                     [] { return std::optional<Clock::time_point>(); });
  ASSERT_TRUE(h.executor().wait_started(kBound));
  ASSERT_TRUE(h.broker().wait_renewals(70, kBound));  // 70 × 50 ms: over two leases
  h.executor().finish_all();
  auto report = h.stop(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->fenced, 0u);
  EXPECT_TRUE(h.done()) << "committed by its own worker";
  EXPECT_EQ(h.broker().acks(), 1);
}

TEST(WorkerFence, ACommitTheBrokerRefusesAsFencedIsDroppedNotRetried) {
  FenceHarness h;
  ASSERT_TRUE(h.ok());
  h.broker().refuse_finish = true;
  auto run = h.start({milliseconds(60'000), milliseconds(0)}, milliseconds(1000));
  ASSERT_TRUE(h.executor().wait_started(kBound));
  h.executor().finish_all();
  auto report = h.stop(run);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->fenced, 1u);
  EXPECT_FALSE(h.done());
  EXPECT_EQ(h.broker().acks() + h.broker().releases(), 0);
}

}  // namespace
}  // namespace merlin
