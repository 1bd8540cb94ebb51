// The monitor's StudyWatch on an in-process Backend (tests/fakes/memory_backend.h): a study
// served by the fleet with one failing sample, then read as the web page reads it: per-step
// counts as `merlin status`, the failure as `detailed-status`, the spec's workers only.
#include "merlin/run/study_watch.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "merlin/run/dist_study.h"
#include "merlin/run/local_run.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/run_record.h"
#include "merlin/run/worker_fleet.h"
#include "tests/fakes/fake_executor.h"
#include "tests/fakes/memory_backend.h"

namespace merlin::run {
namespace {
namespace fs = std::filesystem;

class StudyWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("study_watch_" + std::to_string(::getpid()));  // ctest -j: one process per case
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "samples.csv") << "1\n2\n3\n4\n5\n6\n";
    std::ofstream(dir_ / "watch.yaml") << R"(description: {name: watched, description: a study}
env:
  variables:
    OUTPUT_PATH: ./out
study:
  - name: sim
    run:
      cmd: echo $(X)
  - name: collect
    run:
      cmd: echo all
      depends: [sim_*]
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [X]
)";
    PrepareOptions po;
    po.spec_path = (dir_ / "watch.yaml").string();
    po.epoch = 1'700'000'000;
    po.cwd = dir_.string();
    auto s = prepare_study(po);
    ASSERT_TRUE(s.ok()) << s.error().message;
    workspace_ = (*s)->tokens.workspace;
    ASSERT_TRUE(enqueue_study(**s, backend_).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Serves the study to the end on a fake executor on which sample 2 of sim fails.
  void serve_with_a_failure() {
    auto fake = std::make_shared<testing::FakeExecutor>();
    fake->script("sim", 2, {1});
    FleetOptions o;
    o.given.exit_when_done = true;
    o.output_path = (dir_ / "out").string();
    o.progress_every = std::chrono::milliseconds(0);
    o.executor = [fake](std::chrono::milliseconds) -> std::unique_ptr<StepExecutor> {
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
    run_fleet(backend_, "watched", {WorkerPlan{"w", {"merlin"}, 2, "here.1.w"}}, o);
  }

  std::unique_ptr<StudyWatch> watch() {
    auto at = open_for_status(workspace_, dir_.string(), "");
    EXPECT_TRUE(at.ok()) << at.error().message;
    return std::make_unique<StudyWatch>(std::move(at->study), at->workspace, &backend_,
                                        "memory://");
  }

  fs::path dir_;
  std::string workspace_;
  testing::MemoryBackend backend_;
};

TEST_F(StudyWatchTest, CountsFailuresAndTheSpecsWorkersAsTheStatusCommandsDo) {
  serve_with_a_failure();
  WorkerRecord mine{"h.7.w", "w", "h", 7, "watched", "", {"merlin"}, 2, "", 1'000};
  WorkerRecord batch{"g.9.w", "w", "g", 9, "watched", "", {"merlin"}, 4, "4242", -60'000};
  WorkerRecord other{"h.8.x", "x", "h", 8, "another", "", {"q"}, 1, "", 1'000};
  for (const auto& w : {mine, batch, other}) ASSERT_TRUE(backend_.workers().beat(w).ok());

  auto w = watch();
  auto s = w->refresh(5'000);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->study_name, "watched");
  EXPECT_TRUE(s->distributed);
  ASSERT_EQ(s->steps.size(), 2u);
  EXPECT_EQ(s->steps[0].status.step, "sim");
  EXPECT_EQ(s->steps[0].status.total, 6u);
  EXPECT_EQ(s->steps[0].status.done, 5u);
  EXPECT_EQ(s->steps[0].status.failed, 1u);
  EXPECT_EQ(s->totals.status.total, 7u);
  EXPECT_EQ(s->totals.status.done, 6u);
  EXPECT_EQ(s->totals.eta, 0.0) << "nothing left";
  EXPECT_EQ(s->failed_total, 1u);

  // The in-process store keeps no per-sample bits (Redis does): the list says why it is empty,
  // and the rest of the snapshot is whole.
  EXPECT_TRUE(s->failures.empty());
  EXPECT_NE(s->failures_error.find("cannot list samples"), std::string::npos) << s->failures_error;

  ASSERT_EQ(s->workers.size(), 2u) << "only the workers of this spec";
  EXPECT_EQ(s->workers[0].host, "g");
  EXPECT_EQ(s->workers[0].batch_job, "4242");
  EXPECT_FALSE(s->workers[0].alive) << "65 s without a heartbeat";
  EXPECT_EQ(s->workers[1].host, "h");
  EXPECT_DOUBLE_EQ(s->workers[1].heartbeat_age, 4.0);
  EXPECT_TRUE(s->workers[1].alive);
  EXPECT_EQ(s->workers[1].concurrency, 2);
}

TEST_F(StudyWatchTest, RatesComeFromTheRefreshesOverTheLastMinute) {
  auto w = watch();
  auto before = w->refresh(0);
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_EQ(before->totals.status.queued, 7u);
  EXPECT_FALSE(before->totals.eta.has_value()) << "no rate yet: ETA unknown";
  EXPECT_TRUE(before->failures.empty());
  serve_with_a_failure();
  auto after = w->refresh(10'000);
  ASSERT_TRUE(after.ok());
  EXPECT_DOUBLE_EQ(after->steps[0].rate, 0.6) << "6 sim tasks in 10 s";
  EXPECT_DOUBLE_EQ(after->totals.rate, 0.7);
  ASSERT_EQ(after->throughput.size(), 2u);
  EXPECT_EQ(after->throughput[1].finished, 7u);
}

TEST_F(StudyWatchTest, ALocalRunsFailuresComeFromItsJournalNewestFirst) {
  auto at = open_for_status(workspace_, dir_.string(), "");
  ASSERT_TRUE(at.ok());
  auto fake = std::make_shared<testing::FakeExecutor>();
  fake->script("sim", 2, {1});
  fake->script("sim", 4, {1});
  LocalRunOptions lo;
  lo.slots = 1;
  lo.progress = false;
  lo.executor = [fake](std::chrono::milliseconds) -> std::unique_ptr<StepExecutor> {
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
  auto local = reopen_study(workspace_);
  ASSERT_TRUE(local.ok()) << local.error().message;
  ASSERT_TRUE(run_local(**local, lo).ok());

  StudyWatch w(std::move(at->study), at->workspace, nullptr, "");
  auto s = w.refresh(1'000);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_FALSE(s->distributed);
  EXPECT_TRUE(s->workers.empty());
  EXPECT_TRUE(s->failures_error.empty()) << s->failures_error;
  ASSERT_EQ(s->failures.size(), 2u);
  for (const auto& f : s->failures) {
    EXPECT_EQ(f.step, "sim");
    EXPECT_TRUE(f.sample == 2 || f.sample == 4) << f.sample;
    EXPECT_EQ(f.return_code, "MERLIN_SOFT_FAIL");
    EXPECT_EQ(f.instance, "sim");
    EXPECT_EQ(f.err_file, f.dir + "/sim.err");
    EXPECT_TRUE(f.worker.empty());
  }
  EXPECT_GE(s->failures[0].ended_at, s->failures[1].ended_at) << "newest first";
}

}  // namespace
}  // namespace merlin::run
