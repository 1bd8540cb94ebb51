#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "merlin/core/samples/sample_table.h"

namespace merlin::samples {
namespace {

// The row index keeps one offset per 64 rows; every row must still be found, with blank lines
// between rows and across the stride boundaries.
TEST(TextTableIndex, EveryRowIsFoundAcrossStrideBoundariesAndBlankLines) {
  const std::string path = testing::TempDir() + "/index_rows.csv";
  {
    std::ofstream out(path);
    for (int i = 0; i < 1000; ++i) {
      if (i % 7 == 0) out << "\n  \n";
      out << "r" << i << "," << i * 3 << "\r\n";
    }
  }
  auto table = open_sample_table(path);
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ((*table)->rows(), 1000u);
  for (std::size_t i = 0; i < 1000; ++i) {
    ASSERT_EQ((*table)->value(i, 0), "r" + std::to_string(i)) << "row " << i;
    ASSERT_EQ((*table)->value(i, 1), std::to_string(i * 3)) << "row " << i;
  }
}

// The sequential pass sees the same values as random access, quoted cells unescaped, in
// order, and stops when asked to.
TEST(TextTableIndex, ForEachRowMatchesValueAndStopsEarly) {
  for (const char* ext : {".csv", ".tab"}) {
    const std::string path = testing::TempDir() + "/each_row" + ext;
    const bool csv = std::string(ext) == ".csv";
    {
      std::ofstream out(path);
      for (int i = 0; i < 300; ++i) {
        if (i % 11 == 0) out << "\n \t\n";
        if (csv)
          out << "r" << i << ",\"q \"\"" << i << "\"\"\"\n";
        else
          out << "r" << i << "\t " << i << "\n";
      }
    }
    auto table = open_sample_table(path);
    ASSERT_TRUE(table.ok()) << table.error().message;
    std::size_t seen = 0;
    (*table)->for_each_row([&](std::size_t row, const std::vector<std::string>& values) {
      EXPECT_EQ(row, seen) << ext;
      EXPECT_EQ(values.size(), 2u);
      for (std::size_t c = 0; c < values.size(); ++c)
        EXPECT_EQ(values[c], (*table)->value(row, c)) << ext << " row " << row;
      return ++seen < 250;
    });
    EXPECT_EQ(seen, 250u) << ext << ": stops when the visitor returns false";
    EXPECT_EQ((*table)->value(7, 1), csv ? "q \"7\"" : "7");
  }
}

}  // namespace
}  // namespace merlin::samples
