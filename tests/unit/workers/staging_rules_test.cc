// The pure rules of staging: glob selection, temp names, the manifest format; and CRC32C.
#include "workers/staging_rules.h"

#include <gtest/gtest.h>

#include "merlin/core/util/crc32c.h"

namespace merlin {
namespace {

TEST(StagingRules, PatternsSelectByShellGlobAndReportThoseMatchingNothing) {
  auto s = select_outputs(
      {"result.json", "*.npy", "out/*.csv", "missing_*"},
      {"result.json", "traj.npy", ".hidden.npy", "sub/x.npy", "out/a.csv", "traj.npy.bak"});
  EXPECT_EQ(s.files, (std::vector<std::string>{"out/a.csv", "result.json", "traj.npy"}));
  EXPECT_EQ(s.unmatched, (std::vector<std::string>{"missing_*"}));
}

TEST(StagingRules, AFileMatchedByTwoPatternsIsSelectedOnce) {
  auto s = select_outputs({"*.npy", "traj.*"}, {"traj.npy"});
  EXPECT_EQ(s.files, (std::vector<std::string>{"traj.npy"}));
  EXPECT_TRUE(s.unmatched.empty());
}

TEST(StagingRules, TempNamesAreHiddenAndNameTheirWriter) {
  const std::string n = temp_name("result.json", "node-7.cluster", 1234);
  EXPECT_EQ(n, ".result.json.merlin-tmp.node-7.cluster.1234");
  auto p = parse_temp_name(n);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first, "node-7.cluster");
  EXPECT_EQ(p->second, 1234);
  EXPECT_FALSE(parse_temp_name("result.json"));
  EXPECT_FALSE(parse_temp_name(".merlin-tmp.x.12"));
  EXPECT_FALSE(parse_temp_name(".a.merlin-tmp.host.notapid"));
}

TEST(StagingRules, ManifestLinesRoundTripAndTheLastOneWins) {
  ManifestEntry a{3, "X.1/00/03/result.json", 120, 0x0badf00d};
  ManifestEntry b{3, "X.1/00/03/result.json", 99, 0x12345678};
  ManifestEntry odd{4, "we\tird\\name\n", 1, 2};
  EXPECT_EQ(format_manifest_line(a), "3\tX.1/00/03/result.json\t120\t0badf00d\n");
  auto m =
      read_manifest(format_manifest_line(a) + format_manifest_line(odd) + format_manifest_line(b));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at({3, "X.1/00/03/result.json"}).size, 99u);
  EXPECT_EQ(m.at({3, "X.1/00/03/result.json"}).crc32c, 0x12345678u);
  EXPECT_EQ(m.at({4, "we\tird\\name\n"}).size, 1u);
}

TEST(StagingRules, ATornOrMalformedManifestLineIsSkipped) {
  ManifestEntry a{1, "r.json", 5, 7};
  std::string text = format_manifest_line(a) + "garbage line\n" + "2\tx\t1\tzz\n" +
                     "3\tr.json\t5\t0000";  // torn: no newline
  auto m = read_manifest(text);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.begin()->first.first, 1u);
  // The two whole lines that do not parse are counted; the torn last one is not (a crash).
  std::size_t malformed = 0;
  EXPECT_EQ(read_manifest(text, &malformed).size(), 1u);
  EXPECT_EQ(malformed, 2u);
}

TEST(StagingRules, OnlyASuccessIsStagedAndAFailureKeepsItsScratch) {
  EXPECT_EQ(scratch_action(false, true, false), ScratchAction::kNone);
  EXPECT_EQ(scratch_action(false, false, false), ScratchAction::kNone);
  EXPECT_EQ(scratch_action(true, true, false), ScratchAction::kStageThenCommit);
  EXPECT_EQ(scratch_action(true, false, false), ScratchAction::kKeepForInspection);
  EXPECT_EQ(scratch_action(true, false, true), ScratchAction::kRequeue);
}

TEST(StagingCrc32c, KnownValuesAndChunkingDoNotChangeIt) {
  EXPECT_EQ(crc32c(""), 0u);
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  std::string data;
  for (int i = 0; i < 1000; ++i) data += static_cast<char>(i * 7 + 3);
  std::uint32_t chunked = 0;
  for (std::size_t at = 0; at < data.size(); at += 13)
    chunked = crc32c_extend(chunked, data.data() + at, std::min<std::size_t>(13, data.size() - at));
  EXPECT_EQ(chunked, crc32c(data));
}

TEST(StagingRules, ASuccessRecordIsBelievedOnlyWholeAndOnTheBootThatWroteIt) {
  const std::string text = format_success_record({"b-1", 12.5, false});
  auto r = parse_success_record(text, "b-1");
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->seconds, 12.5);
  EXPECT_FALSE(r->write_finished);
  EXPECT_EQ(r->boot_id, "b-1");
  EXPECT_FALSE(parse_success_record(text, "b-2")) << "another boot: the outputs may be lost";
  EXPECT_FALSE(parse_success_record(text, "")) << "no boot id: never believed";
  EXPECT_FALSE(parse_success_record(text.substr(0, text.size() - 1), "b-1")) << "torn";
  EXPECT_FALSE(parse_success_record("merlin-succeeded 1\nboot b-1\nseconds x\nfinished 1\n", "b-1"));
  EXPECT_FALSE(parse_success_record("merlin-succeeded 2\nboot b-1\nseconds 1\nfinished 1\n", "b-1"));
  EXPECT_FALSE(parse_success_record("", "b-1"));
}

}  // namespace
}  // namespace merlin
