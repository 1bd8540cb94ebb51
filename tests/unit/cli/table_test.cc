// The broker commands' table printer: aligned text, JSON with numbers kept numeric, CSV.
#include "merlin/cli/table.h"

#include <gtest/gtest.h>

namespace merlin::cli {
namespace {

const TableRow kHeader{"QUEUE", "QUEUED"};
const std::vector<TableRow> kRows{{"merlin", "12"}, {"a,b \"q\"", "3"}};

TEST(Table, TextAlignsNumbersRight) {
  EXPECT_EQ(format_table(kHeader, kRows, StatusFormat::kTable),
            "QUEUE    QUEUED\n"
            "merlin       12\n"
            "a,b \"q\"       3\n");
}

TEST(Table, JsonKeepsNumbersAndEscapesStrings) {
  EXPECT_EQ(format_table(kHeader, kRows, StatusFormat::kJson),
            "[\n  {\"queue\": \"merlin\", \"queued\": 12},\n"
            "  {\"queue\": \"a,b \\\"q\\\"\", \"queued\": 3}\n]\n");
}

TEST(Table, CsvQuotesCellsWithCommasOrQuotes) {
  EXPECT_EQ(format_table(kHeader, kRows, StatusFormat::kCsv),
            "QUEUE,QUEUED\nmerlin,12\n\"a,b \"\"q\"\"\",3\n");
}

// A sample directory "02" is text (JSON has no leading zeros); run times "0.250" are numbers.
TEST(Table, JsonNumbersAreOnlyWhatJsonCallsNumbers) {
  const TableRow header{"A", "B", "C", "D", "E"};
  EXPECT_EQ(format_table(header, {{"02", "0.250", "0", "1.", "3.5x"}}, StatusFormat::kJson),
            "[\n  {\"a\": \"02\", \"b\": 0.250, \"c\": 0, \"d\": \"1.\", \"e\": \"3.5x\"}\n]\n");
}

TEST(Table, EmptyJsonIsAnEmptyArray) {
  EXPECT_EQ(format_table(kHeader, {}, StatusFormat::kJson), "[\n]\n");
}

TEST(Table, UnknownFormatIsBadInput) {
  auto f = parse_format("yaml");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, ErrorCode::kBadInput);
}

}  // namespace
}  // namespace merlin::cli
