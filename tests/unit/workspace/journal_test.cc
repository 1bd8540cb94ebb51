// The local run's journal: fixed-size records appended per commit, read back on restart.
#include "merlin/core/workspace/journal.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace merlin {
namespace {
namespace fs = std::filesystem;

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("journal_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "merlin.journal").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<JournalRecord> read_all(std::uint32_t instances, std::uint64_t* count = nullptr) {
    std::vector<JournalRecord> out;
    auto n = read_journal(path_, instances, [&](const JournalRecord& r) { out.push_back(r); });
    EXPECT_TRUE(n.ok()) << (n.ok() ? "" : n.error().message);
    if (count && n.ok()) *count = *n;
    return out;
  }

  void append_bytes(const std::string& bytes) {
    std::ofstream f(path_, std::ios::binary | std::ios::app);
    f << bytes;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(JournalTest, RecordsAreReadBackInOrderWithTheirFields) {
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 3).ok());
    ASSERT_TRUE(w.append({InstanceId{0}, 0, Outcome::kSuccess, 1.5f}).ok());
    ASSERT_TRUE(w.append({InstanceId{2}, 999999, Outcome::kHardFail, 0.25f}).ok());
    ASSERT_TRUE(w.append({InstanceId{1}, 7, Outcome::kStopped, 0}).ok());
  }
  std::uint64_t n = 0;
  auto records = read_all(3, &n);
  EXPECT_EQ(n, 3u);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].instance, InstanceId{0});
  EXPECT_EQ(records[0].sample, 0u);
  EXPECT_EQ(records[0].outcome, Outcome::kSuccess);
  EXPECT_FLOAT_EQ(records[0].seconds, 1.5f);
  EXPECT_EQ(records[1].instance, InstanceId{2});
  EXPECT_EQ(records[1].sample, 999999u);
  EXPECT_EQ(records[1].outcome, Outcome::kHardFail);
  EXPECT_FLOAT_EQ(records[1].seconds, 0.25f);
  EXPECT_EQ(records[2].instance, InstanceId{1});
  EXPECT_EQ(records[2].sample, 7u);
  EXPECT_EQ(records[2].outcome, Outcome::kStopped);
}

TEST_F(JournalTest, ReopeningAppendsAfterTheExistingRecords) {
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 2).ok());
    ASSERT_TRUE(w.append({InstanceId{0}, 1, Outcome::kSuccess, 0}).ok());
  }
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 2).ok());
    ASSERT_TRUE(w.append({InstanceId{1}, 2, Outcome::kSoftFail, 0}).ok());
  }
  auto records = read_all(2);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].sample, 1u);
  EXPECT_EQ(records[1].sample, 2u);
  EXPECT_EQ(records[1].outcome, Outcome::kSoftFail);
}

TEST_F(JournalTest, NewJournalHasNoRecords) {
  JournalWriter w;
  ASSERT_TRUE(w.open(path_, 4).ok());
  std::uint64_t n = 99;
  EXPECT_TRUE(read_all(4, &n).empty());
  EXPECT_EQ(n, 0u);
}

TEST_F(JournalTest, MissingFileIsAnEmptyJournal) {
  std::uint64_t n = 99;
  EXPECT_TRUE(read_all(4, &n).empty());
  EXPECT_EQ(n, 0u);
}

TEST_F(JournalTest, TornTrailingRecordIsIgnored) {
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 1).ok());
    ASSERT_TRUE(w.append({InstanceId{0}, 10, Outcome::kSuccess, 0}).ok());
    ASSERT_TRUE(w.append({InstanceId{0}, 11, Outcome::kSuccess, 0}).ok());
  }
  append_bytes(std::string(10, '\x07'));  // a crash in the middle of the third record
  std::uint64_t n = 0;
  auto records = read_all(1, &n);
  EXPECT_EQ(n, 2u);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].sample, 11u);
}

TEST_F(JournalTest, ReopeningCutsATornRecordSoNewRecordsStayAligned) {
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 1).ok());
    ASSERT_TRUE(w.append({InstanceId{0}, 10, Outcome::kSuccess, 0}).ok());
  }
  append_bytes(std::string(10, '\x07'));
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 1).ok());
    ASSERT_TRUE(w.append({InstanceId{0}, 12, Outcome::kSoftFail, 2.0f}).ok());
  }
  auto records = read_all(1);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].sample, 10u);
  EXPECT_EQ(records[1].instance, InstanceId{0});
  EXPECT_EQ(records[1].sample, 12u);
  EXPECT_EQ(records[1].outcome, Outcome::kSoftFail);
  EXPECT_FLOAT_EQ(records[1].seconds, 2.0f);
}

TEST_F(JournalTest, JournalOfAnotherInstanceCountIsRefused) {
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 3).ok());
    ASSERT_TRUE(w.append({InstanceId{0}, 0, Outcome::kSuccess, 0}).ok());
  }
  int calls = 0;
  auto n = read_journal(path_, 4, [&](const JournalRecord&) { ++calls; });
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code, ErrorCode::kRuntime);
  EXPECT_NE(n.error().message.find("3 step instances recorded"), std::string::npos)
      << n.error().message;
  EXPECT_NE(n.error().message.find("now has 4"), std::string::npos) << n.error().message;
  EXPECT_EQ(calls, 0);
}

TEST_F(JournalTest, FileThatIsNotAJournalIsRefused) {
  append_bytes("this is not a journal at all, just text\n");
  auto n = read_journal(path_, 1, [](const JournalRecord&) {});
  EXPECT_FALSE(n.ok());
}

// A file shorter than the 16-byte header (a torn header write, e.g. on a full disk): open()
// computes `(st_size - kHeader) % kRecord` in unsigned arithmetic, "repairs" the file to 0
// bytes, and then appends records without writing a header, so the journal can never be read
// again (restart and status fail with "not a journal of this study").
TEST_F(JournalTest, ReopeningAJournalWithATornHeaderStartsItAfresh) {
  append_bytes("MRLNJ");
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 2).ok());
    ASSERT_TRUE(w.append({InstanceId{1}, 4, Outcome::kSuccess, 0}).ok());
  }
  auto records = read_all(2);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].instance, InstanceId{1});
  EXPECT_EQ(records[0].sample, 4u);
}

TEST_F(JournalTest, OpeningInAMissingDirectoryFails) {
  JournalWriter w;
  auto r = w.open((dir_ / "no_such_dir" / "merlin.journal").string(), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_NE(r.error().message.find("cannot open journal"), std::string::npos);
}

// A write that stops part-way (here a file size limit; a full disk does the same at a page
// boundary) must not leave a torn record for the next appends to follow.
TEST_F(JournalTest, AShortAppendIsCutSoTheJournalEndsOnAWholeRecord) {
  JournalWriter w;
  ASSERT_TRUE(w.open(path_, 1).ok());
  ASSERT_TRUE(w.append({InstanceId{0}, 1}).ok());
  ASSERT_TRUE(w.append({InstanceId{0}, 2}).ok());
  const auto good = fs::file_size(path_);
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = good + 10;  // 10 bytes of the next record fit
  auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  auto r = w.append({InstanceId{0}, 3});
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_NE(r.error().message.find("cannot write " + path_ + ": File too large"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(fs::file_size(path_), good);
  ASSERT_TRUE(w.append({InstanceId{0}, 4}).ok());
  auto records = read_all(1);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].sample, 4u);
}

TEST_F(JournalTest, AFullDeviceIsANoSpaceErrorNamingTheFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  JournalWriter w;
  auto r = w.open("/dev/full", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNoSpace);
  EXPECT_EQ(r.error().message, "cannot write /dev/full: No space left on device");
}

TEST_F(JournalTest, ATimedOutOutcomeIsReadBackAsOne) {
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 1).ok());
    ASSERT_TRUE(w.append({InstanceId{0}, 5, Outcome::kTimedOut, 2.0f}).ok());
  }
  auto records = read_all(1);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].outcome, Outcome::kTimedOut);
  EXPECT_TRUE(is_failure(records[0].outcome));
}

// detailed-status reads started records and times; restart and status never see a started
// record as a commit.
TEST_F(JournalTest, StartedRecordsAreReadOnlyWhenAskedAndRecordsCarryTheirTime) {
  {
    JournalWriter w;
    ASSERT_TRUE(w.open(path_, 2).ok());
    JournalRecord start{InstanceId{1}, 7};
    start.started = true;
    ASSERT_TRUE(w.append(start).ok());
    JournalRecord done{InstanceId{1}, 7, Outcome::kHardFail, 3.5f};
    done.at = 1234567890;
    ASSERT_TRUE(w.append(done).ok());
  }
  auto commits = read_all(2);
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_FALSE(commits[0].started);
  EXPECT_EQ(commits[0].outcome, Outcome::kHardFail);
  EXPECT_EQ(commits[0].at, 1234567890u);  // a given time is kept

  std::vector<JournalRecord> all;
  auto n = read_journal(path_, 2, [&](const JournalRecord& r) { all.push_back(r); }, true);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2u);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(all[0].started);
  EXPECT_EQ(all[0].sample, 7u);
  EXPECT_GT(all[0].at, 1700000000u);  // stamped with the time of the append
}

}  // namespace
}  // namespace merlin
