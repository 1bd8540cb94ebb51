// listed_under: which manifest paths count for a task's stage_out pattern (merlin verify's
// check for lost manifest lines, docs/staging.md).
#include "merlin/run/staged_expected.h"

#include <gtest/gtest.h>

namespace merlin::run {
namespace {

TEST(StagedExpected, APathCountsForTheTaskDirectoryItIsIn) {
  EXPECT_TRUE(listed_under("A.1/00/17", "A.1/00/17/result.json", "result.json"));
  EXPECT_FALSE(listed_under("A.1/00/17", "A.1/00/171/result.json", "result.json"))
      << "another sample's directory whose name begins alike";
  EXPECT_FALSE(listed_under("A.1/00/17", "A.2/00/17/result.json", "result.json"))
      << "the same sample of another parameter combination";
  EXPECT_FALSE(listed_under("A.1/00/17", "A.1/00/17", "*"));
  EXPECT_TRUE(listed_under("", "result.json", "result.json")) << "a step's own directory";
}

TEST(StagedExpected, PatternsMatchAsStagingMatchesThem) {
  EXPECT_TRUE(listed_under("00/03", "00/03/field.npy", "*.npy"));
  EXPECT_FALSE(listed_under("00/03", "00/03/out/field.npy", "*.npy")) << "* does not cross /";
  EXPECT_TRUE(listed_under("00/03", "00/03/out/a.json", "out/*.json"));
  EXPECT_FALSE(listed_under("00/03", "00/03/.hidden.npy", "*.npy")) << "* skips hidden files";
  EXPECT_TRUE(listed_under("00/03", "00/03/.hidden.npy", ".hidden.npy"));
}

}  // namespace
}  // namespace merlin::run
