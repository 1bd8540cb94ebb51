#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "merlin/core/samples/npy_header.h"
#include "merlin/core/samples/sample_table.h"
#include "tests/unit/samples/sample_test_files.h"

namespace merlin::samples {
namespace {

using testing::npy_header;
using testing::raw_bytes;
using testing::ScratchDir;
using testing::write_file;

class SampleNpyTable : public ::testing::Test {
 protected:
  std::unique_ptr<SampleTable> open_ok(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.file(name);
    write_file(path, bytes);
    auto t = open_sample_table(path);
    EXPECT_TRUE(t.ok()) << t.error().message;
    return t.ok() ? std::move(t.value()) : nullptr;
  }
  std::string open_error(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.file(name);
    write_file(path, bytes);
    auto t = open_sample_table(path);
    EXPECT_FALSE(t.ok());
    if (t.ok()) return "";
    EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
    EXPECT_NE(t.error().message.find(path), std::string::npos) << t.error().message;
    return t.error().message;
  }
  static std::vector<std::string> column(const SampleTable& t, std::size_t col) {
    std::vector<std::string> out;
    for (std::size_t r = 0; r < t.rows(); ++r) out.push_back(t.value(r, col));
    return out;
  }
  ScratchDir dir_;
};

using Strings = std::vector<std::string>;

TEST_F(SampleNpyTable, OneDimensionalFloat64IsOneColumn) {
  auto t = open_ok(
      "a.npy", npy_header("<f8", false, "(4,)") + raw_bytes<double>({0.4775, 1.0, 1e-05, 1e16}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rows(), 4u);
  EXPECT_EQ(t->columns(), 1u);
  EXPECT_EQ(column(*t, 0), (Strings{"0.4775", "1.0", "1e-05", "1e+16"}));
}

TEST_F(SampleNpyTable, Float32RendersItsOwnShortestDigits) {
  auto t = open_ok("a.npy", npy_header("<f4", false, "(2,)") + raw_bytes<float>({0.1f, 2.5f}));
  ASSERT_TRUE(t);
  EXPECT_EQ(column(*t, 0), (Strings{"0.1", "2.5"}));
}

TEST_F(SampleNpyTable, SignedIntegersOfEveryWidth) {
  auto i1 =
      open_ok("i1.npy", npy_header("|i1", false, "(2,)") + raw_bytes<std::int8_t>({-128, 127}));
  auto i2 =
      open_ok("i2.npy", npy_header("<i2", false, "(2,)") + raw_bytes<std::int16_t>({-32768, 7}));
  auto i4 = open_ok(
      "i4.npy", npy_header("<i4", false, "(2,)") + raw_bytes<std::int32_t>({-2147483647 - 1, 42}));
  auto i8 = open_ok("i8.npy", npy_header("<i8", false, "(2,)") +
                                  raw_bytes<std::int64_t>({INT64_MIN, 1234567890123LL}));
  ASSERT_TRUE(i1 && i2 && i4 && i8);
  EXPECT_EQ(column(*i1, 0), (Strings{"-128", "127"}));
  EXPECT_EQ(column(*i2, 0), (Strings{"-32768", "7"}));
  EXPECT_EQ(column(*i4, 0), (Strings{"-2147483648", "42"}));
  EXPECT_EQ(column(*i8, 0), (Strings{"-9223372036854775808", "1234567890123"}));
}

TEST_F(SampleNpyTable, UnsignedIntegersOfEveryWidth) {
  auto u1 = open_ok("u1.npy", npy_header("|u1", false, "(1,)") + raw_bytes<std::uint8_t>({255}));
  auto u2 = open_ok("u2.npy", npy_header("<u2", false, "(1,)") + raw_bytes<std::uint16_t>({65535}));
  auto u4 =
      open_ok("u4.npy", npy_header("<u4", false, "(1,)") + raw_bytes<std::uint32_t>({4294967295u}));
  auto u8 =
      open_ok("u8.npy", npy_header("<u8", false, "(1,)") + raw_bytes<std::uint64_t>({UINT64_MAX}));
  ASSERT_TRUE(u1 && u2 && u4 && u8);
  EXPECT_EQ(u1->value(0, 0), "255");
  EXPECT_EQ(u2->value(0, 0), "65535");
  EXPECT_EQ(u4->value(0, 0), "4294967295");
  EXPECT_EQ(u8->value(0, 0), "18446744073709551615");
}

TEST_F(SampleNpyTable, BoolsRenderAsPythonBools) {
  auto t = open_ok("b.npy", npy_header("|b1", false, "(2,)") + std::string("\x01\x00", 2));
  ASSERT_TRUE(t);
  EXPECT_EQ(column(*t, 0), (Strings{"True", "False"}));
}

TEST_F(SampleNpyTable, BigEndianItemsAreByteSwapped) {
  auto f8 =
      open_ok("f8.npy", npy_header(">f8", false, "(2,)") + raw_bytes<double>({0.25, -3.0}, true));
  auto i4 =
      open_ok("i4.npy", npy_header(">i4", false, "(1,)") + raw_bytes<std::int32_t>({-5}, true));
  auto u2 =
      open_ok("u2.npy", npy_header(">u2", false, "(1,)") + raw_bytes<std::uint16_t>({258}, true));
  auto f4 = open_ok("f4.npy", npy_header(">f4", false, "(1,)") + raw_bytes<float>({0.1f}, true));
  ASSERT_TRUE(f8 && i4 && u2 && f4);
  EXPECT_EQ(column(*f8, 0), (Strings{"0.25", "-3.0"}));
  EXPECT_EQ(i4->value(0, 0), "-5");
  EXPECT_EQ(u2->value(0, 0), "258");
  EXPECT_EQ(f4->value(0, 0), "0.1");
}

TEST_F(SampleNpyTable, NativeByteOrderMarkIsAccepted) {
  auto t = open_ok("n.npy", npy_header("=i8", false, "(1,)") + raw_bytes<std::int64_t>({9}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->value(0, 0), "9");
}

TEST_F(SampleNpyTable, ByteStringsStopAtFirstNul) {
  std::string data = std::string("Alice\0\0\0", 8) + std::string("Bob\0x\0\0\0", 8) + "12345678";
  auto t = open_ok("s.npy", npy_header("|S8", false, "(3,)") + data);
  ASSERT_TRUE(t);
  EXPECT_EQ(column(*t, 0), (Strings{"Alice", "Bob", "12345678"}));
}

TEST_F(SampleNpyTable, UnicodeStringsAreConvertedToUtf8) {
  // "héllo" padded to U6, then "日本" and an astral-plane emoji.
  const std::vector<std::uint32_t> cps = {'h',    0xE9,   'l',     'l', 'o', 0,
                                          0x65E5, 0x672C, 0x1F600, 0,   0,   0};
  auto le = open_ok("u.npy", npy_header("<U6", false, "(2,)") + raw_bytes(cps));
  auto be = open_ok("ube.npy", npy_header(">U6", false, "(2,)") + raw_bytes(cps, true));
  ASSERT_TRUE(le && be);
  const Strings expected = {"h\xC3\xA9llo", "\xE6\x97\xA5\xE6\x9C\xAC\xF0\x9F\x98\x80"};
  EXPECT_EQ(column(*le, 0), expected);
  EXPECT_EQ(column(*be, 0), expected);
}

TEST_F(SampleNpyTable, TwoDimensionalCOrderIsRowMajor) {
  // [[1, 2, 3], [4, 5, 6]]
  auto t = open_ok(
      "c.npy", npy_header("<i4", false, "(2, 3)") + raw_bytes<std::int32_t>({1, 2, 3, 4, 5, 6}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rows(), 2u);
  EXPECT_EQ(t->columns(), 3u);
  EXPECT_EQ(t->value(0, 2), "3");
  EXPECT_EQ(t->value(1, 0), "4");
  EXPECT_EQ(t->value(1, 2), "6");
}

TEST_F(SampleNpyTable, TwoDimensionalFortranOrderIsColumnMajor) {
  // The same [[1, 2, 3], [4, 5, 6]] stored column by column.
  auto t = open_ok("f.npy",
                   npy_header("<i4", true, "(2, 3)") + raw_bytes<std::int32_t>({1, 4, 2, 5, 3, 6}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rows(), 2u);
  EXPECT_EQ(t->columns(), 3u);
  EXPECT_EQ(t->value(0, 1), "2");
  EXPECT_EQ(t->value(1, 0), "4");
  EXPECT_EQ(t->value(1, 2), "6");
}

TEST_F(SampleNpyTable, Version2And3HeadersAreRead) {
  for (int version : {2, 3}) {
    auto t = open_ok("v" + std::to_string(version) + ".npy",
                     npy_header("<f8", false, "(1, 2)", version) + raw_bytes<double>({1.5, 2.0}));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->value(0, 0), "1.5");
    EXPECT_EQ(t->value(0, 1), "2.0");
  }
}

TEST_F(SampleNpyTable, HeaderWithPython2LongsAndNoTrailingCommaIsRead) {
  std::string dict = "{'descr':'<i2','shape':(2L,),'fortran_order':False}\n";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(dict.size()));
  bytes.push_back('\0');
  auto t = open_ok("py2.npy", bytes + dict + raw_bytes<std::int16_t>({3, 4}));
  ASSERT_TRUE(t);
  EXPECT_EQ(column(*t, 0), (Strings{"3", "4"}));
}

TEST_F(SampleNpyTable, TruncatedDataIsRejectedWithSizes) {
  const auto msg =
      open_error("t.npy", npy_header("<f8", false, "(3,)") + raw_bytes<double>({1, 2}));
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  EXPECT_NE(msg.find("needs 24 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("holds 16"), std::string::npos) << msg;
}

TEST_F(SampleNpyTable, TruncatedHeaderIsRejected) {
  const std::string h = npy_header("<f8", false, "(3,)");
  const auto msg = open_error("th.npy", h.substr(0, 40));
  EXPECT_NE(msg.find("truncated .npy header"), std::string::npos) << msg;
}

TEST_F(SampleNpyTable, BadMagicIsRejected) {
  const auto msg = open_error("m.npy", "PK\x03\x04 this is a zip, not an npy file");
  EXPECT_NE(msg.find("not a .npy file"), std::string::npos) << msg;
}

TEST_F(SampleNpyTable, UnknownVersionIsRejected) {
  std::string bytes = npy_header("<f8", false, "(1,)");
  bytes[6] = 4;
  const auto msg = open_error("v4.npy", bytes + raw_bytes<double>({1}));
  EXPECT_NE(msg.find("version 4.0"), std::string::npos) << msg;
}

TEST_F(SampleNpyTable, StructuredDtypeIsRejected) {
  std::string dict =
      "{'descr': [('x', '<f8'), ('y', '<i4')], 'fortran_order': False, 'shape': (1,), }\n";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(dict.size()));
  bytes.push_back('\0');
  const auto msg = open_error("rec.npy", bytes + dict + std::string(12, '\0'));
  EXPECT_NE(msg.find("structured dtypes"), std::string::npos) << msg;
}

TEST_F(SampleNpyTable, ObjectArraysAreRejected) {
  const auto msg = open_error("o.npy", npy_header("|O", false, "(1,)") + std::string(8, '\0'));
  EXPECT_NE(msg.find("object arrays"), std::string::npos) << msg;
}

TEST_F(SampleNpyTable, UnsupportedNumericTypesAreNamed) {
  EXPECT_NE(open_error("h.npy", npy_header("<f2", false, "(1,)") + "xx").find("float16"),
            std::string::npos);
  EXPECT_NE(open_error("c.npy", npy_header("<c16", false, "(1,)") + std::string(16, '\0'))
                .find("complex"),
            std::string::npos);
  EXPECT_NE(open_error("d.npy", npy_header("<M8[s]", false, "(1,)") + std::string(8, '\0'))
                .find("'<M8[s]'"),
            std::string::npos);
}

TEST_F(SampleNpyTable, ShapesOtherThanOneOrTwoDimensionsAreRejected) {
  EXPECT_NE(open_error("s0.npy", npy_header("<f8", false, "()") + raw_bytes<double>({1}))
                .find("single scalar"),
            std::string::npos);
  EXPECT_NE(open_error("s3.npy", npy_header("<f8", false, "(1, 1, 1)") + raw_bytes<double>({1}))
                .find("3 dimensions"),
            std::string::npos);
}

TEST_F(SampleNpyTable, EmptyArrayHasNoSamples) {
  EXPECT_NE(open_error("e.npy", npy_header("<f8", false, "(0,)")).find("no samples"),
            std::string::npos);
  EXPECT_NE(open_error("e2.npy", npy_header("<f8", false, "(3, 0)")).find("no columns"),
            std::string::npos);
}

TEST_F(SampleNpyTable, MalformedHeaderDictIsRejected) {
  EXPECT_NE(open_error("k.npy", npy_header("<f8", false, "(1,)").replace(10, 1, "[") +
                                    raw_bytes<double>({1}))
                .find("malformed .npy header"),
            std::string::npos);
}

TEST(SampleNpyDescr, ParsesSizesAndByteOrder) {
  auto u = parse_npy_descr("<U5");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->kind, NpyKind::kUnicode);
  EXPECT_EQ(u->item_size, 20u);
  auto be = parse_npy_descr(">i2");
  ASSERT_TRUE(be.ok());
  EXPECT_TRUE(be->big_endian);
  EXPECT_EQ(be->item_size, 2u);
  EXPECT_FALSE(parse_npy_descr("<i3").ok());
  EXPECT_FALSE(parse_npy_descr("|S0").ok());
}

TEST_F(SampleNpyTable, TenMillionRowsOpenWithoutReadingTheData) {
  // A sparse file: the header plus 80 MB of zeros that are never written (or read at open).
  const std::string path = dir_.file("big.npy");
  const std::string header = npy_header("<f8", false, "(10000000,)");
  write_file(path, header);
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(header.size() + 80'000'000)), 0);
  auto t = open_sample_table(path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ((*t)->rows(), 10'000'000u);
  EXPECT_EQ((*t)->value(9'999'999, 0), "0.0");
}

TEST_F(SampleNpyTable, ConcurrentReadsAgree) {
  std::vector<double> values;
  for (int i = 0; i < 4000; ++i) values.push_back(i * 0.25);
  auto t = open_ok("par.npy", npy_header("<f8", false, "(2000, 2)") + raw_bytes(values));
  ASSERT_TRUE(t);
  const Strings expected0 = column(*t, 0);
  for (int threads : {1, 2, 4}) {
    std::vector<int> mismatches(threads, 0);
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k) {
      pool.emplace_back([&, k] {
        for (std::size_t r = 0; r < t->rows(); ++r) {
          if (t->value(r, 0) != expected0[r]) ++mismatches[k];
        }
      });
    }
    for (auto& th : pool) th.join();
    for (int m : mismatches) EXPECT_EQ(m, 0);
  }
}

}  // namespace
}  // namespace merlin::samples
