// Which samples collect reads: finished and succeeded, from the local journal and the workers'.
#include "merlin/run/sample_outcomes.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "merlin/core/workspace/journal.h"
#include "merlin/core/workspace/task_journals.h"
#include "tests/unit/samples/sample_test_files.h"

namespace merlin::run {
namespace {

TEST(CollectSampleOutcomes, JournalsOfTheRunAndOfWorkersTellFinishedAndSucceeded) {
  samples::testing::ScratchDir dir;
  const std::string info = dir.file("merlin_info");
  std::filesystem::create_directories(info + "/tasks");
  {
    JournalWriter local;
    ASSERT_TRUE(local.open(local_journal_path(info), 2).ok());
    ASSERT_TRUE(local.append({InstanceId{1}, 0, Outcome::kSuccess, 0.1f}).ok());
    ASSERT_TRUE(local.append({InstanceId{1}, 1, Outcome::kSoftFail, 0.1f}).ok());
    ASSERT_TRUE(local.append({InstanceId{1}, 2, Outcome::kSoftFail, 0.1f}).ok());
    JournalRecord started{InstanceId{1}, 4};
    started.started = true;  // started, never finished: not collected
    ASSERT_TRUE(local.append(started).ok());
    ASSERT_TRUE(local.append({InstanceId{0}, 3, Outcome::kSuccess, 0.1f}).ok());  // another step
  }
  {
    JournalWriter worker;  // a restart's worker: sample 2 succeeds this time
    ASSERT_TRUE(worker.open(worker_journal_path(info, "w1", "host.1"), 2).ok());
    ASSERT_TRUE(worker.append({InstanceId{1}, 2, Outcome::kSuccess, 0.1f}).ok());
    ASSERT_TRUE(worker.append({InstanceId{1}, 5, Outcome::kStopped, 0.1f}).ok());
  }
  auto o = read_sample_outcomes(info, 2, InstanceId{1}, 6);
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->finished, (std::vector<bool>{true, true, true, false, false, true}));
  EXPECT_EQ(o->succeeded, (std::vector<bool>{true, false, true, false, false, true}));
  EXPECT_EQ(o->finished_count, 4u);
}

TEST(CollectSampleOutcomes, NoJournalYetIsNothingFinished) {
  samples::testing::ScratchDir dir;
  auto o = read_sample_outcomes(dir.file("merlin_info"), 1, InstanceId{0}, 3);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->finished_count, 0u);
}

}  // namespace
}  // namespace merlin::run
