#include "merlin/core/samples/sample_table.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/unit/samples/sample_test_files.h"

namespace merlin::samples {
namespace {

using testing::ScratchDir;
using testing::write_file;

// A table held in memory, to test find_unsafe_value on its own.
class VectorTable final : public SampleTable {
 public:
  explicit VectorTable(std::vector<std::vector<std::string>> rows) : rows_(std::move(rows)) {}
  std::size_t rows() const override { return rows_.size(); }
  std::size_t columns() const override { return rows_.empty() ? 0 : rows_[0].size(); }
  std::string value(std::size_t r, std::size_t c) const override { return rows_[r][c]; }

 private:
  std::vector<std::vector<std::string>> rows_;
};

TEST(SampleTableOpen, UnknownExtensionListsSupportedOnes) {
  auto t = open_sample_table("/nonexistent/samples.json");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
  EXPECT_NE(t.error().message.find("'.json'"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find(".npy, .csv, .tab"), std::string::npos) << t.error().message;
}

TEST(SampleTableOpen, NoExtensionIsReported) {
  auto t = open_sample_table("samples");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
  EXPECT_NE(t.error().message.find("no extension"), std::string::npos) << t.error().message;
}

TEST(SampleTableOpen, MissingFileNamesThePath) {
  for (const char* path : {"/nonexistent/dir/samples.npy", "/nonexistent/dir/samples.csv"}) {
    auto t = open_sample_table(path);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
    EXPECT_NE(t.error().message.find(path), std::string::npos) << t.error().message;
    EXPECT_NE(t.error().message.find("does not exist"), std::string::npos) << t.error().message;
  }
}

TEST(SampleTableOpen, DirectoryIsNotASampleFile) {
  ScratchDir dir;
  std::filesystem::create_directory(dir.file("d.csv"));
  auto t = open_sample_table(dir.file("d.csv"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
  EXPECT_NE(t.error().message.find("is a directory"), std::string::npos) << t.error().message;
}

// Opening a FIFO for reading waits for a writer: before the fix this test hung until the
// ctest timeout (and `merlin run` hung forever with an empty workspace).
TEST(SampleTableOpen, FifoIsRefusedWithoutBlocking) {
  ScratchDir dir;
  for (const char* name : {"fifo.csv", "fifo.tab", "fifo.npy"}) {
    ASSERT_EQ(::mkfifo(dir.file(name).c_str(), 0600), 0) << name;
    auto t = open_sample_table(dir.file(name));
    ASSERT_FALSE(t.ok()) << name;
    EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
    EXPECT_EQ(t.error().message,
              "sample file '" + dir.file(name) + "' is a FIFO, expected a regular file");
  }
}

TEST(SampleTableOpen, CharacterDeviceIsRefused) {
  ScratchDir dir;
  const std::string link = dir.file("zero.csv");
  ASSERT_EQ(::symlink("/dev/zero", link.c_str()), 0);
  auto t = open_sample_table(link);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
  EXPECT_NE(t.error().message.find("is a character device, expected a regular file"),
            std::string::npos)
      << t.error().message;
}

TEST(SampleTableOpen, ExtensionIsMatchedCaseInsensitively) {
  ScratchDir dir;
  write_file(dir.file("S.CSV"), "1,2\n");
  auto t = open_sample_table(dir.file("S.CSV"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ((*t)->columns(), 2u);
}

TEST(SampleShellSafety, NumbersNamesPathsAndENotationAreSafe) {
  for (const char* v : {"0.4775", "-1.5e-05", "1e+16", "Alice", "run_01", "a/b/c.txt", "k=v",
                        "user@host:/path", "50%", "a,b", "True", ""}) {
    EXPECT_TRUE(is_shell_safe(v)) << v;
  }
}

TEST(SampleShellSafety, ShellSyntaxWhitespaceAndNonAsciiAreUnsafe) {
  for (const char* v : {"x; rm -rf ~", "$(id)", "`id`", "a b", "a\tb", "a\nb", "'q'",
                        "\"q\"",       "a|b",   "a&b",  "a>b", "a<b",  "*",    "a?",
                        "[a]",         "{a,b}", "~",    "!x",  "#c",   "a\\b", "h\xC3\xA9llo"}) {
    EXPECT_FALSE(is_shell_safe(v)) << v;
  }
}

TEST(SampleShellSafety, FindUnsafeValueReportsTheFirstInRowOrder) {
  VectorTable t({{"1", "ok"}, {"2", "x; rm -rf ~"}, {"$(id)", "fine"}});
  auto bad = find_unsafe_value(t);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->row, 1u);
  EXPECT_EQ(bad->col, 1u);
  EXPECT_EQ(bad->value, "x; rm -rf ~");
}

TEST(SampleValueRules, ValueLongerThanItsColumnsLimitIsReportedAsTooLong) {
  VectorTable t({{"1", "ok"}, {"2", std::string(11, 'x')}, {"$(id)", "fine"}});
  ValueRules rules;
  rules.max_bytes = {100, 10};
  auto bad = find_bad_value(t, rules);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->problem, ValueProblem::kTooLong);
  EXPECT_EQ(bad->row, 1u);
  EXPECT_EQ(bad->col, 1u);
  rules.max_bytes = {100, 11};
  bad = find_bad_value(t, rules);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->problem, ValueProblem::kShellUnsafe);
  EXPECT_EQ(bad->row, 2u);
}

TEST(SampleValueRules, LengthIsCheckedWithTheShellCheckOff) {
  VectorTable t({{"a b"}, {std::string(kMaxArgStringBytes, 'x')}});
  ValueRules rules;
  rules.shell_safe_only = false;
  EXPECT_FALSE(find_bad_value(t, rules).has_value());
  rules.max_bytes = {kMaxArgStringBytes - 1};
  auto bad = find_bad_value(t, rules);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->problem, ValueProblem::kTooLong);
  EXPECT_EQ(bad->row, 1u);
}

TEST(SampleValueRules, NulByteIsRefusedEvenWithTheShellCheckOff) {
  using namespace std::string_literals;
  VectorTable t({{"a b"},
                 {"2\0"
                  "3"s}});
  ValueRules rules;
  rules.shell_safe_only = false;
  auto bad = find_bad_value(t, rules);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->problem, ValueProblem::kNulByte);
  EXPECT_EQ(bad->row, 1u);
}

TEST(SampleShellSafety, FindUnsafeValueIsEmptyForASafeTable) {
  VectorTable t({{"1", "a"}, {"2", "b"}});
  EXPECT_FALSE(find_unsafe_value(t).has_value());
}

TEST(SampleShellSafety, FindUnsafeValueScansARealCsv) {
  ScratchDir dir;
  write_file(dir.file("s.csv"), "0.1,Alice\n0.2,\"Bob; reboot\"\n");
  auto t = open_sample_table(dir.file("s.csv"));
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto bad = find_unsafe_value(**t);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->row, 1u);
  EXPECT_EQ(bad->col, 1u);
  EXPECT_EQ(bad->value, "Bob; reboot");
}

}  // namespace
}  // namespace merlin::samples
