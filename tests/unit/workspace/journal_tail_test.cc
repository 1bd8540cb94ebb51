// Journals read from remembered offsets (merlin collect --follow): only what was appended since.
#include "merlin/core/workspace/journal_tail.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "merlin/core/workspace/task_journals.h"

namespace merlin {
namespace {
namespace fs = std::filesystem;

TEST(JournalTailDecision, NeverReadReadsFromTheStart) {
  const TailPlan p = decide_tail(std::nullopt, {1, 2, 400});
  EXPECT_EQ(p.action, TailAction::kReadFrom);
  EXPECT_EQ(p.offset, 0u);
}

TEST(JournalTailDecision, SameFileGrownReadsFromTheOffset) {
  const TailPlan p = decide_tail(JournalCursor{1, 2, 160}, {1, 2, 400});
  EXPECT_EQ(p.action, TailAction::kReadFrom);
  EXPECT_EQ(p.offset, 160u);
}

TEST(JournalTailDecision, SameFileSameSizeReadsNothingNewFromTheOffset) {
  const TailPlan p = decide_tail(JournalCursor{1, 2, 400}, {1, 2, 400});
  EXPECT_EQ(p.action, TailAction::kReadFrom);
  EXPECT_EQ(p.offset, 400u);
}

TEST(JournalTailDecision, TornTailCutBackToTheOffsetIsNotATruncation) {
  // A crash left 412 bytes; the writer cut them back to 400, where the reader stopped.
  EXPECT_EQ(decide_tail(JournalCursor{1, 2, 400}, {1, 2, 400}).action, TailAction::kReadFrom);
}

TEST(JournalTailDecision, FileShorterThanTheOffsetIsReadAnew) {
  EXPECT_EQ(decide_tail(JournalCursor{1, 2, 400}, {1, 2, 376}).action, TailAction::kRebuild);
}

TEST(JournalTailDecision, AnotherInodeOrDeviceIsReadAnew) {
  EXPECT_EQ(decide_tail(JournalCursor{1, 2, 400}, {1, 3, 800}).action, TailAction::kRebuild);
  EXPECT_EQ(decide_tail(JournalCursor{1, 2, 400}, {9, 2, 800}).action, TailAction::kRebuild);
}

TEST(JournalTailDecision, CursorAtZeroIsNeverRead) {
  EXPECT_EQ(decide_tail(JournalCursor{1, 2, 0}, {7, 8, 40}).action, TailAction::kReadFrom);
}

class JournalTailTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    info_ = (fs::path(::testing::TempDir()) / (std::string("jtail_") + info->name())).string();
    fs::remove_all(info_);
    fs::create_directories(info_ + "/tasks");
  }
  void TearDown() override { fs::remove_all(info_); }

  // Appends samples [from, to) of instance 0 to `path`.
  static void append(const std::string& path, std::uint64_t from, std::uint64_t to) {
    JournalWriter w;
    ASSERT_TRUE(w.open(path, 1).ok());
    for (std::uint64_t s = from; s < to; ++s)
      ASSERT_TRUE(w.append({InstanceId{0}, s, Outcome::kSuccess, 0.1f}).ok());
  }

  Result<TailRead> poll() {
    return tail_.read(info_, 1, [&] { seen_.clear(), ++resets_; },
                      [&](const JournalRecord& r) { seen_.push_back(r.sample); });
  }

  std::string info_;
  JournalTail tail_;
  std::vector<std::uint64_t> seen_;
  int resets_ = 0;
};

TEST_F(JournalTailTest, SecondPollReadsOnlyTheRecordsAppendedSince) {
  const std::string local = local_journal_path(info_);
  append(local, 0, 3);
  auto a = poll();
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->bytes, 16u + 3 * 24);
  EXPECT_EQ(a->records, 3u);
  append(local, 3, 5);
  auto b = poll();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->bytes, 16u + 2 * 24);  // the header (checked again) and the two new records
  EXPECT_EQ(b->records, 2u);
  EXPECT_EQ(seen_, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
  auto c = poll();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->records, 0u);
  EXPECT_EQ(resets_, 0);
}

TEST_F(JournalTailTest, AWorkerJournalAppearingLaterIsReadFromItsStart) {
  append(local_journal_path(info_), 0, 2);
  ASSERT_TRUE(poll().ok());
  append(worker_journal_path(info_, "w1", "h.1"), 2, 4);
  auto b = poll();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->records, 2u);
  EXPECT_EQ(b->journals, 2u);
  EXPECT_EQ(seen_, (std::vector<std::uint64_t>{0, 1, 2, 3}));
}

TEST_F(JournalTailTest, TornLastRecordIsReadOnceWhole) {
  const std::string local = local_journal_path(info_);
  append(local, 0, 2);
  {
    FILE* f = std::fopen(local.c_str(), "ab");  // half of a record: a writer mid-write
    const char half[12] = {};
    std::fwrite(half, 1, sizeof half, f);
    std::fclose(f);
  }
  auto a = poll();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->records, 2u);
  fs::resize_file(local, 16 + 2 * 24);  // the writer cuts the torn record, then appends
  append(local, 2, 3);
  auto b = poll();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->rebuilt, false);
  EXPECT_EQ(seen_, (std::vector<std::uint64_t>{0, 1, 2}));
}

TEST_F(JournalTailTest, ReplacedJournalResetsAndReadsEveryJournalAnew) {
  const std::string local = local_journal_path(info_);
  append(local, 0, 4);
  append(worker_journal_path(info_, "w1", "h.1"), 10, 11);
  ASSERT_TRUE(poll().ok());
  fs::remove(local);
  append(local, 0, 1);  // a new file under the name, shorter
  auto b = poll();
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->rebuilt);
  EXPECT_EQ(resets_, 1);
  EXPECT_EQ(seen_, (std::vector<std::uint64_t>{0, 10}));
}

TEST_F(JournalTailTest, TruncatedJournalIsReadAnew) {
  const std::string local = local_journal_path(info_);
  append(local, 0, 4);
  ASSERT_TRUE(poll().ok());
  fs::resize_file(local, 16 + 24);
  auto b = poll();
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->rebuilt);
  EXPECT_EQ(seen_, (std::vector<std::uint64_t>{0}));
}

TEST_F(JournalTailTest, RemovedJournalIsReadAnew) {
  append(local_journal_path(info_), 0, 2);
  append(worker_journal_path(info_, "w1", "h.1"), 5, 6);
  ASSERT_TRUE(poll().ok());
  fs::remove(worker_journal_path(info_, "w1", "h.1"));
  auto b = poll();
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->rebuilt);
  EXPECT_EQ(seen_, (std::vector<std::uint64_t>{0, 1}));
}

// The figure docs/collect.md gives: a journal of 10^6 records, then 1,000 more per poll.
TEST_F(JournalTailTest, PollOfAMillionRecordJournalReadsOnlyTheNewRecords) {
  const std::string local = local_journal_path(info_);
  append(local, 0, 1000000);
  auto a = poll();
  ASSERT_TRUE(a.ok());
  append(local, 1000000, 1001000);
  auto b = poll();
  ASSERT_TRUE(b.ok());
  const auto whole = fs::file_size(local);
  std::printf("journal of %llu bytes: first poll read %llu bytes, a poll after 1000 commits read "
              "%llu bytes (a full read: %llu)\n",
              static_cast<unsigned long long>(whole), static_cast<unsigned long long>(a->bytes),
              static_cast<unsigned long long>(b->bytes), static_cast<unsigned long long>(whole));
  EXPECT_EQ(b->bytes, 16u + 1000u * 24);
  EXPECT_EQ(seen_.size(), 1001000u);
}

}  // namespace
}  // namespace merlin
