// The types of collected fields: what a JSON field's values make, what a later sample's values
// may go into, the missing-value mask, and --compression's text.
#include "merlin/core/data/field_type.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "merlin/core/data/compression.h"
#include "merlin/core/data/output_reader.h"
#include "merlin/core/data/sample_fields.h"

namespace merlin::data {
namespace {

DType type_of(JsonKinds k) {
  auto t = json_field_type(k);
  EXPECT_TRUE(t.ok());
  return t.ok() ? *t : DType::kString;
}

TEST(FieldType, JsonIntegersAreInt64FloatsWinAndBooleansAloneAreBool) {
  EXPECT_EQ(type_of({.ints = true}), DType::kInt64);
  EXPECT_EQ(type_of({.ints = true, .nulls = true}), DType::kInt64);
  EXPECT_EQ(type_of({.floats = true, .ints = true}), DType::kFloat64);
  EXPECT_EQ(type_of({.ints = true, .big = true}), DType::kFloat64);
  EXPECT_EQ(type_of({.ints = true, .bools = true}), DType::kInt64);
  EXPECT_EQ(type_of({.bools = true}), DType::kBool);
  EXPECT_EQ(type_of({.nulls = true}), DType::kFloat64);
  EXPECT_EQ(type_of({.strings = true, .nulls = true}), DType::kString);
  EXPECT_FALSE(json_field_type({.ints = true, .strings = true}).ok());
}

TEST(FieldType, NamesRoundTripAndOnlyFloatsGoWithoutAMask) {
  for (auto t : {DType::kFloat64, DType::kFloat32, DType::kInt64, DType::kUInt8, DType::kBool,
                 DType::kString})
    EXPECT_EQ(dtype_named(dtype_name(t)), t);
  EXPECT_FALSE(needs_mask(DType::kFloat32));
  EXPECT_TRUE(needs_mask(DType::kInt64));
  EXPECT_TRUE(needs_mask(DType::kBool));
  EXPECT_TRUE(needs_mask(DType::kString));
  EXPECT_EQ(dtype_size(DType::kFloat32), 4u);
}

SampleFields json(const std::string& text) {
  SampleFields out;
  auto r = parse_json_output("r", text, out);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return out;
}

TEST(FieldType, JsonReaderKeepsTypesAndReadsPythonsNaNAndInfinity) {
  auto f = json(R"({"a": 3, "b": 2.5, "c": true, "d": "x", "e": [1, null], "f": NaN,
                    "g": [Infinity, -Infinity], "h": "NaN inside a string"})");
  ASSERT_EQ(f.size(), 8u);
  EXPECT_EQ(f[0].type, DType::kInt64);
  EXPECT_EQ(f[1].type, DType::kFloat64);
  EXPECT_EQ(f[2].type, DType::kBool);
  EXPECT_EQ(f[3].type, DType::kString);
  EXPECT_EQ(f[3].strings, std::vector<std::string>{"x"});
  EXPECT_EQ(f[4].type, DType::kInt64);
  EXPECT_EQ(f[4].missing, (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ(f[5].type, DType::kFloat64);
  EXPECT_TRUE(std::isnan(f[5].number(0)));
  EXPECT_EQ(f[6].numbers(), (std::vector<double>{INFINITY, -INFINITY}));
  EXPECT_EQ(f[7].strings, std::vector<std::string>{"NaN inside a string"});
}

TEST(FieldType, Int64BeyondADoublesPrecisionIsExact) {
  auto f = json(R"({"n": 9007199254740993})");
  std::int64_t v = 0;
  std::memcpy(&v, f[0].bytes.data(), 8);
  EXPECT_EQ(v, 9007199254740993);
}

Field one(const std::string& text) { return json(R"({"v": )" + text + "}")[0]; }

TEST(FieldType, LaterSamplesGoIntoTheFirstSamplesTypeWhenNothingIsLost) {
  EXPECT_EQ(conversion_problem(one("2.0"), DType::kInt64), "");
  EXPECT_EQ(conversion_problem(one("NaN"), DType::kInt64), "");  // missing
  EXPECT_EQ(conversion_problem(one("7"), DType::kFloat64), "");
  EXPECT_EQ(conversion_problem(one("1"), DType::kBool), "");
  EXPECT_NE(conversion_problem(one("2.5"), DType::kInt64).find("holds 2.5, not an integer"),
            std::string::npos);
  EXPECT_NE(conversion_problem(one("2"), DType::kBool).find("outside bool's range"),
            std::string::npos);
  EXPECT_NE(conversion_problem(one("300"), DType::kUInt8).find("outside uint8's range"),
            std::string::npos);
  EXPECT_NE(conversion_problem(one("Infinity"), DType::kInt64).find("Infinity"),
            std::string::npos);
  EXPECT_NE(conversion_problem(one("\"x\""), DType::kFloat64).find("holds strings"),
            std::string::npos);
  EXPECT_NE(conversion_problem(one("1"), DType::kString).find("holds numbers"), std::string::npos);
}

TEST(FieldType, ConvertedColumnsCarryTheirMaskAndFloatsCarryNaN) {
  FieldColumn ints;
  append_converted(one("[1.0, NaN, 3]"), DType::kInt64, ints);
  append_missing(DType::kInt64, 2, ints);
  EXPECT_EQ(ints.missing, (std::vector<std::uint8_t>{0, 1, 0, 1, 1}));
  std::int64_t v[5];
  std::memcpy(v, ints.bytes.data(), sizeof v);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[2], 3);
  FieldColumn floats;
  append_converted(one("[1, null]"), DType::kFloat64, floats);
  append_missing(DType::kFloat64, 1, floats);
  EXPECT_TRUE(floats.missing.empty());
  EXPECT_EQ(floats.f64(0), 1.0);
  EXPECT_TRUE(std::isnan(floats.f64(1)));
  EXPECT_TRUE(std::isnan(floats.f64(2)));
  FieldColumn texts;
  append_converted(one("[\"a\", null]"), DType::kString, texts);
  append_missing(DType::kString, 1, texts);
  EXPECT_EQ(texts.strings, (std::vector<std::string>{"a", "", ""}));
  EXPECT_EQ(texts.missing, (std::vector<std::uint8_t>{0, 1, 1}));
}

TEST(FieldType, CsvIntegerCellsAreInt64) {
  SampleFields f;
  ASSERT_TRUE(parse_csv_output("c", "n,x,e\n3,0.5,\n", f).ok());
  EXPECT_EQ(f[0].type, DType::kInt64);
  EXPECT_EQ(f[1].type, DType::kFloat64);
  EXPECT_TRUE(std::isnan(f[2].number(0)));
}

TEST(Compression, ParsesNoneGzipWithLevelAndLz4AndRefusesTheRest) {
  EXPECT_EQ(parse_compression("none")->kind, Compression::Kind::kNone);
  EXPECT_EQ(parse_compression("gzip")->level, 4);
  EXPECT_EQ(parse_compression("gzip:9")->level, 9);
  EXPECT_EQ(parse_compression("lz4")->kind, Compression::Kind::kLz4);
  EXPECT_EQ(compression_text(*parse_compression("gzip:6")), "gzip:6");
  for (const char* bad : {"gzip:0", "gzip:10", "gzip:", "lz4:3", "brotli", "none:1"})
    EXPECT_FALSE(parse_compression(bad).ok()) << bad;
  EXPECT_NE(parse_compression("zstd").error().message.find("no zstd filter"), std::string::npos);
}

}  // namespace
}  // namespace merlin::data
