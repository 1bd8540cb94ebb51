#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "merlin/samples/sample_table.h"

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

}  // namespace
}  // namespace merlin::samples
