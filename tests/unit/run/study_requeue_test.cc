// `merlin restart` of a study queued in a broker (merlin/run/study_requeue.h), on the
// in-process Backend: the old messages go, failed samples run again, done ones are kept, and
// what the Plan finds ready is queued once.
#include "merlin/run/study_requeue.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "merlin/run/dist_study.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/run_record.h"
#include "tests/fakes/memory_backend.h"

namespace merlin::run {
namespace {
namespace fs = std::filesystem;

class StudyRequeueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("requeue_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "samples.csv") << "1\n2\n3\n4\n";
    std::ofstream(dir_ / "study.yaml")
        << R"(description: {name: rq, description: four samples and a funnel}
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
    po.spec_path = (dir_ / "study.yaml").string();
    po.epoch = 1'700'000'000;
    po.cwd = dir_.string();
    auto s = prepare_study(po);
    ASSERT_TRUE(s.ok()) << s.error().message;
    study_ = std::move(*s);
    auto e = enqueue_study(*study_, backend_);
    ASSERT_TRUE(e.ok()) << e.error().message;
    key_ = study_key_of(study_->tokens.workspace);
  }
  void TearDown() override { fs::remove_all(dir_); }

  InstanceId sim() const { return study_->graph->steps()[0].first_instance; }
  void commit(SampleId x, Outcome o) {
    auto c = backend_.store(key_)->commit(sim(), x, o, 1.0);
    ASSERT_TRUE(c.ok()) << c.error().message;
  }
  std::uint64_t waiting() {
    auto p = backend_.studies().pending(key_);
    EXPECT_TRUE(p.ok());
    return p.ok() ? *p : 0;
  }

  fs::path dir_;
  std::unique_ptr<PreparedStudy> study_;
  std::string key_;
  testing::MemoryBackend backend_;
};

TEST_F(StudyRequeueTest, TheOldMessagesAreDroppedAndWhatIsReadyIsQueuedOnce) {
  ASSERT_EQ(waiting(), 1u) << "the sim instance, all its samples in one message";
  auto r = requeue_study(*study_, backend_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->dropped, 1u);
  EXPECT_EQ(r->queued, 1u);
  EXPECT_EQ(r->done, 0u);
  EXPECT_EQ(r->total, 5u);
  EXPECT_EQ(r->failed_again, 0u);
  EXPECT_EQ(waiting(), 1u) << "not the old message and the new one";
}

TEST_F(StudyRequeueTest, FailedSamplesAreUnfinishedAgainAndDoneOnesAreKept) {
  commit(0, Outcome::kSuccess);
  commit(1, Outcome::kSoftFail);
  commit(2, Outcome::kHardFail);
  commit(3, Outcome::kSuccess);
  auto r = requeue_study(*study_, backend_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->failed_again, 2u);
  EXPECT_EQ(r->done, 2u);
  EXPECT_EQ(r->total, 5u);
  auto store = backend_.store(key_);
  EXPECT_TRUE(*store->is_done(sim(), 0));
  EXPECT_FALSE(*store->is_done(sim(), 1));
  EXPECT_FALSE(*store->is_done(sim(), 2));
  auto p = store->progress();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[sim().v].failed, 0u);
  EXPECT_EQ(r->queued, 1u) << "the unfinished sim instance; leaves skip the samples done";
}

TEST_F(StudyRequeueTest, AFinishedStepReleasesItsFunnelAgain) {
  for (SampleId x = 0; x < 4; ++x) commit(x, Outcome::kSuccess);
  auto store = backend_.store(key_);
  const InstanceId funnel = study_->graph->steps()[1].first_instance;
  ASSERT_TRUE(*store->claim_release(funnel)) << "as the worker of the last commit does";
  auto r = requeue_study(*study_, backend_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->done, 4u);
  EXPECT_EQ(r->queued, 1u) << "the funnel, its release forgotten and claimed again";
  EXPECT_FALSE(*store->claim_release(funnel)) << "the re-queue claimed it";
}

TEST_F(StudyRequeueTest, ATaskWithItsMarkerButNoCommitIsCommittedNotRunAgain) {
  commit(0, Outcome::kSuccess);
  commit(1, Outcome::kSoftFail);  // failed: no marker, runs again
  // Sample 2 finished and wrote its marker; its worker died before the commit.
  const std::string dir = study_->renderer->task_dir(sim(), 2);
  fs::create_directories(dir);
  std::ofstream(dir + "/MERLIN_FINISHED");
  auto r = requeue_study(*study_, backend_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->marked, 1u);
  EXPECT_EQ(r->done, 2u) << "sample 0 and the marked sample 2";
  auto store = backend_.store(key_);
  EXPECT_TRUE(*store->is_done(sim(), 2));
  EXPECT_FALSE(*store->is_done(sim(), 1));
  EXPECT_FALSE(*store->is_done(sim(), 3));
}

TEST_F(StudyRequeueTest, APurgedStudyIsNoLongerMarkedPurged) {
  ASSERT_TRUE(backend_.studies().set_purged(key_, true).ok());
  ASSERT_TRUE(requeue_study(*study_, backend_).ok());
  auto list = backend_.studies().list();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_FALSE((*list)[0].purged);
}

TEST_F(StudyRequeueTest, AStudyTheBrokerLostIsNotHeldThere) {
  EXPECT_TRUE(*broker_holds_study(*study_, backend_));
  testing::MemoryBackend other;
  EXPECT_FALSE(*broker_holds_study(*study_, other));
}

TEST(RestartHere, AStudyQueuedInABrokerIsNotRestartedLocally) {
  auto r = check_restart_here("/ws/rq_1", true, true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("`merlin restart /ws/rq_1` (without --local)"),
            std::string::npos);
  EXPECT_TRUE(check_restart_here("/ws/rq_1", true, false).ok());
  EXPECT_TRUE(check_restart_here("/ws/rq_1", false, true).ok());
}

}  // namespace
}  // namespace merlin::run
