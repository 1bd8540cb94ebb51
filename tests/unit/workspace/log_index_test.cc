// A lean workspace's log index: fixed records, read back per sample, torn tails ignored.
#include "merlin/core/workspace/log_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace merlin {
namespace {
namespace fs = std::filesystem;

LogIndexRecord record(std::uint64_t sample, std::uint32_t attempt, std::int64_t end_ns) {
  LogIndexRecord r;
  r.sample = sample;
  r.attempt = attempt;
  r.exit_code = -3;
  r.out_offset = 0x0102030405060708ull;
  r.out_length = 17;
  r.err_offset = 1ull << 40;
  r.err_length = 0;
  r.end_ns = end_ns;
  return r;
}

TEST(LogIndex, RecordIsFixedSizeAndRoundTrips) {
  auto r = record(12345678901ull, 7, 1'700'000'000'123'456'789);
  std::string bytes = encode_log_record(r);
  ASSERT_EQ(bytes.size(), kLogIndexRecordSize);
  auto back = decode_log_index(std::string(kLogIndexMagic) + bytes, "x.index");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), 1u);
  const auto& b = back->front();
  EXPECT_EQ(b.sample, r.sample);
  EXPECT_EQ(b.attempt, 7u);
  EXPECT_EQ(b.exit_code, -3);
  EXPECT_EQ(b.out_offset, r.out_offset);
  EXPECT_EQ(b.out_length, 17u);
  EXPECT_EQ(b.err_offset, r.err_offset);
  EXPECT_EQ(b.err_length, 0u);
  EXPECT_EQ(b.end_ns, r.end_ns);
}

TEST(LogIndex, LittleEndianOnDisk) {
  std::string bytes = encode_log_record(record(1, 2, 0));
  EXPECT_EQ(bytes[0], '\x01');
  EXPECT_EQ(bytes[8], '\x02');
  EXPECT_EQ(bytes[16], '\x08');  // low byte of out_offset first
}

TEST(LogIndex, TornLastRecordIsDropped) {
  std::string bytes = std::string(kLogIndexMagic) + encode_log_record(record(1, 1, 1)) +
                      encode_log_record(record(2, 1, 2)).substr(0, 30);
  auto back = decode_log_index(bytes, "x.index");
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(back->front().sample, 1u);
}

TEST(LogIndex, WrongMagicIsBadInputNamingTheFile) {
  auto back = decode_log_index("not an index at all", "/w/sim/.merlin_logs/h.1.0.index");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().code, ErrorCode::kBadInput);
  EXPECT_NE(back.error().message.find("h.1.0.index"), std::string::npos);
}

class LogIndexDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("log_index_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write_index(const std::string& name, const std::vector<LogIndexRecord>& rs) {
    std::ofstream f(dir_ / name, std::ios::binary);
    f << kLogIndexMagic;
    for (const auto& r : rs) f << encode_log_record(r);
  }
  fs::path dir_;
};

TEST_F(LogIndexDirTest, AttemptsOfOneSampleAcrossWritersOldestFirst) {
  // Attempt 1 ran on worker a, attempt 2 (a retry) on worker b, then a redelivery on a.
  write_index("a.1.0.index", {record(5, 1, 100), record(6, 1, 150), record(5, 2, 300)});
  write_index("b.2.0.index", {record(5, 2, 200), record(7, 1, 250)});
  std::ofstream(dir_ / "a.1.0.out") << "ignored: not an index";
  auto found = find_log_attempts(dir_.string(), 5);
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_EQ(found->size(), 3u);
  EXPECT_EQ((*found)[0].writer, "a.1.0");
  EXPECT_EQ((*found)[0].record.end_ns, 100);
  EXPECT_EQ((*found)[1].writer, "b.2.0");
  EXPECT_EQ((*found)[1].out_path, (dir_ / "b.2.0.out").string());
  EXPECT_EQ((*found)[1].err_path, (dir_ / "b.2.0.err").string());
  EXPECT_EQ((*found)[2].record.end_ns, 300);
}

TEST_F(LogIndexDirTest, NoFolderOrNoRecordMeansNoAttempts) {
  auto none = find_log_attempts((dir_ / "missing").string(), 0);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  write_index("a.1.0.index", {record(1, 1, 1)});
  auto other = find_log_attempts(dir_.string(), 2);
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->empty());
}

TEST_F(LogIndexDirTest, DamagedIndexIsAnError) {
  std::ofstream(dir_ / "a.1.0.index") << "garbage";
  auto found = find_log_attempts(dir_.string(), 0);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().code, ErrorCode::kBadInput);
}

}  // namespace
}  // namespace merlin
