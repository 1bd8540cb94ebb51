// The worker fleet on an in-process Backend (tests/fakes/memory_backend.h): a study queued by
// the run layer is served to the end by run_fleet, its funnel after its samples; the
// heartbeat registers and removes the workers; stop-workers is obeyed. No server.
#include "merlin/run/worker_fleet.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "merlin/run/dist_study.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/run_record.h"
#include "merlin/run/study_requeue.h"
#include "tests/fakes/fake_executor.h"
#include "tests/fakes/memory_backend.h"

namespace merlin::run {
namespace {
namespace fs = std::filesystem;

// One fake shared by every worker's executor.
ExecutorFactory shared_executor(std::shared_ptr<testing::FakeExecutor> fake) {
  return [fake](std::chrono::milliseconds) -> std::unique_ptr<StepExecutor> {
    struct Shared : StepExecutor {
      std::shared_ptr<testing::FakeExecutor> f;
      Result<void> prepare(const RenderedTask& t) override { return f->prepare(t); }
      Result<ExecResult> run(const RenderedTask& t) override { return f->run(t); }
      Result<void> mark_finished(const RenderedTask& t) override { return f->mark_finished(t); }
    };
    auto e = std::make_unique<Shared>();
    e->f = fake;
    return e;
  };
}

class WorkerFleetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("fleet_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "samples.csv") << "1\n2\n3\n4\n5\n6\n";
    std::ofstream(dir_ / "fleet.yaml")
        << R"(description: {name: fleet, description: samples and a funnel}
env:
  variables:
    OUTPUT_PATH: ./out
study:
  - name: sim
    run:
      cmd: echo $(X) > x.txt
  - name: collect
    run:
      cmd: cat $(sim.workspace)/$(MERLIN_GLOB_PATH)x.txt | sort -n | tr '\n' ' ' > all.txt
      depends: [sim_*]
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [X]
)";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Prepares and queues the study; its key.
  std::string queue_study() {
    PrepareOptions po;
    po.spec_path = (dir_ / "fleet.yaml").string();
    po.epoch = 1'700'000'000;
    po.cwd = dir_.string();
    auto s = prepare_study(po);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    if (!s.ok()) return "";
    workspace_ = (*s)->tokens.workspace;
    auto e = enqueue_study(**s, backend_);
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
    return study_key_of(workspace_);
  }
  FleetOptions options() {
    FleetOptions o;
    o.given.exit_when_done = true;
    o.output_path = (dir_ / "out").string();
    o.progress_every = std::chrono::milliseconds(0);
    return o;
  }
  std::vector<WorkerPlan> plans() { return {WorkerPlan{"w", {"merlin"}, 2, "here.1.w"}}; }
  std::pair<std::uint64_t, std::uint64_t> done_total(const std::string& key) {
    std::uint64_t done = 0, total = 0;
    auto p = backend_.store(key)->progress();
    EXPECT_TRUE(p.ok());
    if (p.ok())
      for (const auto& i : *p) {
        done += i.done;
        total += i.total;
      }
    return {done, total};
  }

  fs::path dir_;
  std::string workspace_;
  testing::MemoryBackend backend_;
};

TEST_F(WorkerFleetTest, ServesAQueuedStudyToTheEndAndLeaves) {
  const auto key = queue_study();
  ASSERT_FALSE(key.empty());
  EXPECT_EQ(run_fleet(backend_, "fleet", plans(), options()), 0);
  EXPECT_EQ(done_total(key), std::make_pair(std::uint64_t{7}, std::uint64_t{7}))
      << "six samples and the funnel";
  std::ifstream all(fs::path(workspace_) / "collect" / "all.txt");
  std::string text((std::istreambuf_iterator<char>(all)), {});
  EXPECT_EQ(text, "1 2 3 4 5 6 ") << "the funnel ran after every sample";
  auto pending = backend_.studies().pending(key);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(*pending, 0u);
  EXPECT_TRUE(backend_.workers_seen().empty()) << "the worker's record goes when it leaves";
}

TEST_F(WorkerFleetTest, StepsRunOnTheInjectedExecutorAndAFailedSampleIsCounted) {
  const auto key = queue_study();
  ASSERT_FALSE(key.empty());
  auto fake = std::make_shared<testing::FakeExecutor>();
  fake->script("sim", 2, {1});  // sample 2 fails
  auto o = options();
  o.executor = [fake](std::chrono::milliseconds) -> std::unique_ptr<StepExecutor> {
    struct Shared : StepExecutor {  // every worker's executor is the one fake
      std::shared_ptr<testing::FakeExecutor> f;
      Result<void> prepare(const RenderedTask& t) override { return f->prepare(t); }
      Result<ExecResult> run(const RenderedTask& t) override { return f->run(t); }
      Result<void> mark_finished(const RenderedTask& t) override { return f->mark_finished(t); }
    };
    auto e = std::make_unique<Shared>();
    e->f = fake;
    return e;
  };
  run_fleet(backend_, "fleet", plans(), o);
  EXPECT_EQ(fake->count_of("sim"), 6u) << "every sample ran on the fake, once";
  EXPECT_EQ(fake->count_of("collect"), 1u) << "the funnel still runs after a failed sample";
  EXPECT_FALSE(fs::exists(fs::path(workspace_) / "collect" / "all.txt")) << "nothing ran for real";
  auto p = backend_.store(key)->progress();
  ASSERT_TRUE(p.ok());
  std::uint64_t failed = 0;
  for (const auto& i : *p) failed += i.failed;
  EXPECT_EQ(failed, 1u);
}

TEST_F(WorkerFleetTest, AStopRequestedBeforeItStartsRunsNothing) {
  const auto key = queue_study();
  ASSERT_FALSE(key.empty());
  ASSERT_TRUE(backend_.workers().request_stop({"here.1.w"}).ok());
  EXPECT_EQ(run_fleet(backend_, "fleet", plans(), options()), 0);
  EXPECT_EQ(done_total(key).first, 0u) << "stop-workers is obeyed at the first heartbeat";
  auto pending = backend_.studies().pending(key);
  ASSERT_TRUE(pending.ok());
  EXPECT_GT(*pending, 0u) << "its work is still queued for other workers";
}

TEST_F(WorkerFleetTest, NoStudyOfThatNameIsNoWorkAndSuccess) {
  EXPECT_EQ(run_fleet(backend_, "fleet", plans(), options()), 0);
}

TEST_F(WorkerFleetTest, AQueuedStudyIsHeldByItsBrokerAfterAFailure) {
  const auto key = queue_study();
  ASSERT_FALSE(key.empty());
  auto failing = std::make_shared<testing::FakeExecutor>();
  failing->script("sim", 2, {1});  // sample 2 fails
  auto o = options();
  o.executor = shared_executor(failing);
  run_fleet(backend_, "fleet", plans(), o);
  auto s = reopen_study(workspace_, true, "");
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto held = broker_holds_study(**s, backend_);
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(*held) << "restart queues it again from the broker's progress";
}

TEST_F(WorkerFleetTest, AStudyTheBrokerNeverHeldIsNotHeld) {
  const auto key = queue_study();
  ASSERT_FALSE(key.empty());
  auto s = reopen_study(workspace_, true, "");
  ASSERT_TRUE(s.ok()) << s.error().message;
  testing::MemoryBackend empty;
  auto held = broker_holds_study(**s, empty);
  ASSERT_TRUE(held.ok());
  EXPECT_FALSE(*held) << "restart rebuilds it from the workspace";
}

}  // namespace
}  // namespace merlin::run
