// The report writers (merlin/core/report): one typed table, written as aligned text, CSV and JSON.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "merlin/core/report/csv_writer.h"
#include "merlin/core/report/format.h"
#include "merlin/core/report/json_writer.h"
#include "merlin/core/report/text_writer.h"

namespace merlin::report {
namespace {

Table queues() {
  Table t;
  t.columns = {{.header = "QUEUE"}, {.header = "QUEUED"}};
  t.rows = {{"merlin", 12}, {"a,b \"q\"", 3}};
  return t;
}

TEST(TextWriter, AlignsNumbersRightAndTextLeft) {
  EXPECT_EQ(to_text(queues()),
            "QUEUE    QUEUED\n"
            "merlin       12\n"
            "a,b \"q\"       3\n");
}

TEST(TextWriter, EmptyTableIsTheHeaderLeftAligned) {
  Table t = queues();
  t.rows.clear();
  EXPECT_EQ(to_text(t), "QUEUE  QUEUED\n");
}

TEST(TextWriter, NullShowsTheColumnsNullTextAndDoesNotMakeANumberColumnText) {
  Table t;
  t.columns = {{.header = "NAME"}, {.header = "JOB", .null_text = "-"}, {.header = "N"}};
  t.rows = {{"w1", nullptr, 7}, {"w2", "1234.x", nullptr}, {"w3", nullptr, 10}};
  EXPECT_EQ(to_text(t),
            "NAME  JOB      N\n"
            "w1    -        7\n"
            "w2    1234.x\n"
            "w3    -       10\n");
}

TEST(TextWriter, MinimumWidthAndDecimals) {
  Table t;
  t.columns = {{.header = "S", .align = Align::kLeft, .min_width = 4},
               {.header = "MEAN", .align = Align::kRight, .min_width = 9, .decimals = 3}};
  t.rows = {{"a", 0.25}};
  EXPECT_EQ(to_text(t), "S          MEAN\na         0.250\n");
}

TEST(TextWriter, CountsCharactersNotBytes) {
  Table t;
  t.columns = {{.header = "STEP"}, {.header = "N"}};
  t.rows = {{"größe", 1}, {"x", 22}};
  EXPECT_EQ(to_text(t),
            "STEP    N\n"
            "größe   1\n"
            "x      22\n");
}

TEST(TextWriter, ListsBooleansAndShownCells) {
  Table t;
  t.columns = {{.header = "QUEUES"}, {.header = "OK"}, {.header = "AT"}};
  t.rows = {{StringList{"a", "b"}, true, Cell(std::uint64_t{5}).shown_as("five")}};
  EXPECT_EQ(to_text(t), "QUEUES  OK    AT\na,b     true  five\n");
}

TEST(CsvWriter, QuotesCellsWithCommasQuotesOrLineBreaks) {
  EXPECT_EQ(to_csv(queues()), "QUEUE,QUEUED\nmerlin,12\n\"a,b \"\"q\"\"\",3\n");
  Table t;
  t.columns = {{.header = "A"}};
  t.rows = {{"two\nlines"}, {"cr\r"}};
  EXPECT_EQ(to_csv(t), "A\n\"two\nlines\"\n\"cr\r\"\n");
}

TEST(CsvWriter, ListsAreOneCellJoinedByCommasAndNullsAreTheNullText) {
  Table t;
  t.columns = {{.header = "QUEUES"}, {.header = "JOB", .null_text = "-"}, {.header = "CODE"}};
  t.rows = {{StringList{"a", "b"}, nullptr, nullptr}, {StringList{"c"}, "12", "X"}};
  EXPECT_EQ(to_csv(t), "QUEUES,JOB,CODE\n\"a,b\",-,\nc,12,X\n");
}

TEST(CsvWriter, HeaderCanBeTheJsonNames) {
  Table t;
  t.columns = {{.header = "RETURN CODE"}, {.header = "MEAN(s)", .key = "mean_seconds"}};
  EXPECT_EQ(to_csv(t, CsvHeader::kKeys), "return_code,mean_seconds\n");
}

TEST(CsvWriter, NonFiniteDoublesAreNull) {
  Table t;
  t.columns = {{.header = "X", .decimals = 2}};
  t.rows = {{std::numeric_limits<double>::quiet_NaN()}, {INFINITY}, {1.0}};
  EXPECT_EQ(to_csv(t), "X\n\n\n1.00\n");
}

TEST(JsonWriter, TypesComeFromTheCellsNotTheirText) {
  Table t;
  t.columns = {{.header = "NAME"},   {.header = "PID"},   {.header = "BIG"},
               {.header = "RATE"},   {.header = "ALIVE"}, {.header = "JOB"},
               {.header = "QUEUES"}, {.header = "DIR"},   {.header = "AT"}};
  t.rows = {{"w", -3, std::uint64_t{18446744073709551615ull}, 0.25, false, nullptr,
             StringList{"a", "b"}, "02", Cell(std::uint64_t{7}).shown_as("seven")}};
  EXPECT_EQ(to_json(t),
            "[\n  {\"name\":\"w\",\"pid\":-3,\"big\":18446744073709551615,\"rate\":0.25,"
            "\"alive\":false,\"job\":null,\"queues\":[\"a\",\"b\"],\"dir\":\"02\",\"at\":7}\n]\n");
}

TEST(JsonWriter, KeysFollowColumnOrderAndDefaultToLowerCaseHeaders) {
  Table t;
  t.columns = {{.header = "Z"}, {.header = "RETURN CODE"}, {.header = "MEAN(s)", .key = "mean"}};
  t.rows = {{1, 2, 3}};
  EXPECT_EQ(to_json(t), "[\n  {\"z\":1,\"return_code\":2,\"mean\":3}\n]\n");
}

TEST(JsonWriter, NanAndInfinityAreNull) {
  Table t;
  t.columns = {{.header = "A"}, {.header = "B"}, {.header = "C"}};
  t.rows = {{std::numeric_limits<double>::quiet_NaN(), -INFINITY, 1.5}};
  EXPECT_EQ(to_json(t), "[\n  {\"a\":null,\"b\":null,\"c\":1.5}\n]\n");
}

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  Table t;
  t.columns = {{.header = "S"}};
  t.rows = {{"a\"b\\c\nd\te\x01"}};
  EXPECT_EQ(to_json(t), "[\n  {\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001\"}\n]\n");
}

TEST(JsonWriter, KeepsUnicodeAndReplacesInvalidUtf8) {
  Table t;
  t.columns = {{.header = "S"}};
  t.rows = {{"größe ✓"}, {std::string("bad \xff\xfe end")}};
  EXPECT_EQ(to_json(t),
            "[\n  {\"s\":\"größe ✓\"},\n  {\"s\":\"bad \xEF\xBF\xBD\xEF\xBF\xBD end\"}\n]\n");
}

TEST(JsonWriter, EmptyTableIsAnEmptyArray) {
  Table t = queues();
  t.rows.clear();
  EXPECT_EQ(to_json(t), "[]\n");
}

TEST(JsonWriter, ShortRowsEndInNulls) {
  Table t = queues();
  t.rows = {{"only"}};
  EXPECT_EQ(to_json(t), "[\n  {\"queue\":\"only\",\"queued\":null}\n]\n");
}

TEST(JsonWriter, ObjectOfValuesAndTables) {
  Table steps = queues();
  steps.rows.resize(1);
  EXPECT_EQ(to_json({{"workspace", "/w"}, {"finished", false}, {"steps", steps}}),
            "{\n"
            "  \"workspace\": \"/w\",\n"
            "  \"finished\": false,\n"
            "  \"steps\": [\n"
            "    {\"queue\":\"merlin\",\"queued\":12}\n"
            "  ]\n"
            "}\n");
}

TEST(JsonWriter, ObjectWithAnArrayOfObjects) {
  Table rows = queues();
  rows.rows.resize(1);
  Table none = queues();
  none.rows.clear();
  std::vector<Object> searches{{{"step", "a"}, {"rows", rows}}, {{"step", "b"}, {"rows", none}}};
  EXPECT_EQ(to_json({{"steps", none}, {"searches", searches}, {"empty", std::vector<Object>{}}}),
            "{\n"
            "  \"steps\": [],\n"
            "  \"searches\": [\n"
            "    {\n"
            "      \"step\": \"a\",\n"
            "      \"rows\": [\n"
            "        {\"queue\":\"merlin\",\"queued\":12}\n"
            "      ]\n"
            "    },\n"
            "    {\n"
            "      \"step\": \"b\",\n"
            "      \"rows\": []\n"
            "    }\n"
            "  ],\n"
            "  \"empty\": []\n"
            "}\n");
  EXPECT_EQ(to_json(Object{}), "{}\n");
}

TEST(Format, RenderPicksTheWriter) {
  EXPECT_EQ(render(queues(), Format::kCsv), to_csv(queues()));
  EXPECT_EQ(render(queues(), Format::kJson), to_json(queues()));
  EXPECT_EQ(render(queues(), Format::kTable), to_text(queues()));
}

TEST(Format, UnknownFormatIsBadInput) {
  auto f = parse_format("yaml");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(parse_format("json").value(), Format::kJson);
}

TEST(Format, DumpFormatFromTheExtension) {
  EXPECT_EQ(dump_format("x.csv").value(), Format::kCsv);
  EXPECT_EQ(dump_format("dir.v2/x.json").value(), Format::kJson);
  auto bad = dump_format("x.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad.error().message.find("x.txt"), std::string::npos);
}

}  // namespace
}  // namespace merlin::report
