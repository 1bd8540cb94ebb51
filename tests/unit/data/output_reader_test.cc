// The per-sample output readers of merlin collect: JSON, .npy, CSV into numeric fields.
#include "merlin/core/data/output_reader.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "tests/unit/samples/sample_test_files.h"

namespace merlin::data {
namespace {

using samples::testing::npy_header;
using samples::testing::raw_bytes;

SampleFields json(const std::string& text, const std::string& stem = "result") {
  SampleFields out;
  auto r = parse_json_output(stem, text, out);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return out;
}

std::string json_error(const std::string& text) {
  SampleFields out;
  auto r = parse_json_output("result", text, out);
  return r.ok() ? "" : r.error().message;
}

TEST(CollectOutputReader, JsonObjectKeysBecomeStemSlashKeyFields) {
  auto f = json(R"({"energy": 1.5, "traj": [1, 2, 3], "flag": true, "none": null})");
  ASSERT_EQ(f.size(), 4u);  // keys in sorted order
  EXPECT_EQ(f[0].name, "result/energy");
  EXPECT_TRUE(f[0].shape.empty());
  EXPECT_EQ(f[0].numbers(), std::vector<double>{1.5});
  EXPECT_EQ(f[1].name, "result/flag");
  EXPECT_EQ(f[1].numbers(), std::vector<double>{1.0});
  EXPECT_EQ(f[2].name, "result/none");
  EXPECT_TRUE(std::isnan(f[2].numbers()[0]));
  EXPECT_EQ(f[3].name, "result/traj");
  EXPECT_EQ(f[3].shape, std::vector<std::uint64_t>{3});
  EXPECT_EQ(f[3].numbers(), (std::vector<double>{1, 2, 3}));
}

TEST(CollectOutputReader, JsonNestedArraysAndObjects) {
  auto f = json(R"({"m": [[1, 2, 3], [4, 5, 6]], "sub": {"a": 7}})");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(f[0].numbers(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(f[1].name, "result/sub/a");
}

TEST(CollectOutputReader, JsonTopLevelNumberOrArrayIsTheStem) {
  auto f = json("[0.25, 0.5]", "y");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].name, "y");
  EXPECT_EQ(f[0].numbers(), (std::vector<double>{0.25, 0.5}));
  EXPECT_EQ(json("42", "n")[0].numbers(), std::vector<double>{42});
}

TEST(CollectOutputReader, JsonMalformedSaysWhy) {
  EXPECT_NE(json_error("{\"a\": 1,"), "");
  EXPECT_NE(json_error(R"({"a": [[1, 2], [3]]})").find("ragged"), std::string::npos);
  EXPECT_NE(json_error(R"({"a": [1, [2]]})").find("ragged"), std::string::npos);
  EXPECT_NE(json_error(R"({"a": [[1], 2]})").find("ragged"), std::string::npos);
  EXPECT_NE(json_error(R"({"a": ["text", 1]})").find("result/a: strings mixed with numbers"),
            std::string::npos);
  EXPECT_NE(json_error("{}").find("empty object"), std::string::npos);
}

// Issue #25: 30,000 nested brackets (60 KB) crashed the reader (recursion); 64 levels read.
TEST(CollectOutputReader, JsonNestedDeeperThan64LevelsIsMalformedNotACrash) {
  const std::string deep = std::string(30000, '[') + std::string(30000, ']');
  EXPECT_NE(json_error(deep).find("nested more than 64 levels deep"), std::string::npos);
  std::string objects;
  for (int i = 0; i < 30000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(30000, '}');
  EXPECT_NE(json_error(objects).find("nested more than 64 levels deep"), std::string::npos);
  const std::string ok64 = std::string(64, '[') + "1" + std::string(64, ']');
  auto f = json(ok64, "r");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].shape, std::vector<std::uint64_t>(64, 1));
  // Brackets inside strings are not nesting.
  EXPECT_EQ(json("{\"k\": \"" + deep + "\"}")[0].strings[0], deep);
}

TEST(CollectOutputReader, NpyFloatCOrder) {
  std::string bytes = npy_header("<f8", false, "(2, 3)") + raw_bytes<double>({1, 2, 3, 4, 5, 6});
  SampleFields f;
  ASSERT_TRUE(parse_npy_output("field", bytes, f).ok());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].name, "field");
  EXPECT_EQ(f[0].shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(f[0].numbers(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(CollectOutputReader, NpyFortranOrderIntsAreReadInCOrder) {
  // [[1, 2, 3], [4, 5, 6]] in Fortran order: columns first.
  std::string bytes =
      npy_header("<i4", true, "(2, 3)") + raw_bytes<std::int32_t>({1, 4, 2, 5, 3, 6});
  SampleFields f;
  ASSERT_TRUE(parse_npy_output("m", bytes, f).ok());
  EXPECT_EQ(f[0].numbers(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(CollectOutputReader, NpyBigEndianAndScalar) {
  std::string bytes = npy_header(">f8", false, "()") + raw_bytes<double>({2.5}, true);
  SampleFields f;
  ASSERT_TRUE(parse_npy_output("s", bytes, f).ok());
  EXPECT_TRUE(f[0].shape.empty());
  EXPECT_EQ(f[0].numbers(), std::vector<double>{2.5});
}

TEST(CollectOutputReader, NpyTruncatedOrTextIsMalformed) {
  SampleFields f;
  std::string short_data = npy_header("<f8", false, "(4,)") + raw_bytes<double>({1, 2});
  auto r = parse_npy_output("x", short_data, f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("truncated"), std::string::npos);
  EXPECT_FALSE(
      parse_npy_output("x", npy_header("<U3", false, "(1,)") + std::string(12, 'a'), f).ok());
  EXPECT_FALSE(parse_npy_output("x", "not an npy file at all", f).ok());
}

TEST(CollectOutputReader, CsvHeaderAndOneRow) {
  SampleFields f;
  ASSERT_TRUE(parse_csv_output("stats", "mean, max\n0.5, 3\n", f).ok());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].name, "stats/mean");
  EXPECT_EQ(f[0].numbers(), std::vector<double>{0.5});
  EXPECT_EQ(f[1].name, "stats/max");
  EXPECT_EQ(f[1].numbers(), std::vector<double>{3});
}

TEST(CollectOutputReader, CsvOtherShapesAreMalformed) {
  SampleFields f;
  EXPECT_FALSE(parse_csv_output("s", "a,b\n1,2\n3,4\n", f).ok());
  EXPECT_FALSE(parse_csv_output("s", "a,b\n1\n", f).ok());
  EXPECT_FALSE(parse_csv_output("s", "a\nhello\n", f).ok());
}

TEST(CollectOutputReader, KindByExtension) {
  EXPECT_EQ(*output_kind("out/result.json"), OutputKind::kJson);
  EXPECT_EQ(*output_kind("a.npy"), OutputKind::kNpy);
  EXPECT_EQ(*output_kind("a.csv"), OutputKind::kCsv);
  auto bad = output_kind("a.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(output_stem("out/result.json"), "result");
}

}  // namespace
}  // namespace merlin::data
