// `merlin sample` and the disk (issue #25 item 9): counts are read signed and bounded, the
// output's size is estimated by format before writing, and a writing stopped by an interrupt
// leaves no file.
#include "merlin/core/sampling/output_room.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "merlin/core/sampling/sample_writer.h"

namespace merlin::sampling {
namespace {
namespace fs = std::filesystem;

SampleDesign design(std::uint64_t rows, std::size_t cols, Method m = Method::kUniform) {
  SampleDesign d;
  d.method = m;
  d.rows = rows;
  for (std::size_t c = 0; c < cols; ++c) d.columns.push_back({"x" + std::to_string(c), 0, 1});
  return d;
}

TEST(SampleRows, ANegativeCountIsRefusedAsWrittenNotWrapped) {
  for (const char* text : {"-5", "-1", "0", "-18446744073709551611", "18446744073709551611",
                           "1000000000001", "5x", "", "1e6"}) {
    auto r = parse_rows(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    EXPECT_EQ(r.error().message,
              std::string("-n/--rows: ") + text + " is not a row count from 1 to 1000000000000");
  }
  EXPECT_EQ(*parse_rows("1"), 1u);
  EXPECT_EQ(*parse_rows("1000000000000"), kMaxRows);
}

TEST(SampleRows, CheckDesignRefusesMoreThanTheMaximum) {
  auto r = check_design(design(kMaxRows + 1, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_TRUE(check_design(design(kMaxRows, 1)).ok());
}

TEST(OutputRoom, TheEstimateFollowsTheFormat) {
  EXPECT_EQ(estimated_bytes(design(1000, 2), "a.npy"), 128u + 16000u);
  EXPECT_EQ(estimated_bytes(design(1000, 2), "a.h5"), 65536u + 16000u);
  EXPECT_EQ(estimated_bytes(design(1000, 2), "a.csv"), 20u + 48000u);
  // A grid writes k^d rows, not -n: 10 rows over 2 columns is a 3 x 3 grid.
  EXPECT_EQ(estimated_bytes(design(10, 2, Method::kGrid), "g.npy"), 128u + 9 * 2 * 8);
  // The largest design allowed does not overflow.
  EXPECT_GT(estimated_bytes(design(kMaxRows, 1 << 16), "a.csv"), kMaxRows);
}

TEST(OutputRoom, NoRoomIsNoSpaceWithTheEstimateAndWhatIsFree) {
  const std::uint64_t est = 16'000'128;
  auto r = check_room("/scratch/x.npy", est, 8 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNoSpace);
  EXPECT_EQ(r.error().message,
            "/scratch/x.npy needs about 15.3 MiB and its file system has 8.0 MiB free; free some "
            "space, write fewer rows (-n), or write it elsewhere (-o)");
  EXPECT_FALSE(check_room("x.npy", est, est).ok()) << "the margin is asked too";
  EXPECT_TRUE(check_room("x.npy", est, bytes_needed(est)).ok());
}

TEST(OutputRoom, SizesReadAsPeopleWriteThem) {
  EXPECT_EQ(bytes_text(512), "512 B");
  EXPECT_EQ(bytes_text(1536), "1.5 KiB");
  EXPECT_EQ(bytes_text(std::uint64_t{3} << 40), "3.0 TiB");
}

TEST(SampleWriter, AStoppedWritingLeavesNoFileTemporaryOrFinal) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("stopped_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  int asked = 0;
  WriteOptions o;
  o.stopped = [&] { return ++asked > 2; };  // stopped before the third block
  for (const char* name : {"s.npy", "s.csv"}) {
    asked = 0;
    const std::string path = (dir / name).string();
    auto r = write_samples(design(1 << 20, 2), path, o);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
    EXPECT_EQ(r.error().message, "interrupted: nothing written to " + path);
    EXPECT_TRUE(fs::is_empty(dir)) << name << ": " << fs::directory_iterator(dir)->path();
  }
  std::uint64_t handed = 0;
  auto r = write_sample_rows(
      design(1 << 20, 2),
      [&](const double*, std::uint64_t n) -> Result<void> {
        handed += n;
        return ok();
      },
      [&] { return handed > 0; }, "s.h5");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_EQ(r.error().message, "interrupted: nothing written to s.h5");
  EXPECT_EQ(handed, 1u << 15) << "one block, then the stop";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace merlin::sampling
