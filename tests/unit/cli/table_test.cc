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
