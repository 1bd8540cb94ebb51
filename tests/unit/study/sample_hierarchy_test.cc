// Merlin's sample directory layout: k levels, the least k with L^k >= N; base-L digits
// zero-padded to the width of L; split() into at most L aligned children.
#include "merlin/core/study/sample_hierarchy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace merlin {
namespace {

using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// Checks that `parts` tile [lo, hi) in order: contiguous, non-empty, no overlap.
void expect_exact_cover(const Ranges& parts, std::uint64_t lo, std::uint64_t hi) {
  ASSERT_FALSE(parts.empty());
  EXPECT_EQ(parts.front().first, lo);
  EXPECT_EQ(parts.back().second, hi);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    EXPECT_LT(parts[i].first, parts[i].second) << "child " << i << " is empty";
    if (i > 0) {
      EXPECT_EQ(parts[i - 1].second, parts[i].first) << "gap or overlap at child " << i;
    }
  }
}

TEST(SampleHierarchy, OneSampleHasNoLevelsAndAnEmptyPath) {
  SampleHierarchy h(1, 25);
  EXPECT_EQ(h.levels(), 0);
  EXPECT_EQ(h.path(0), "");
  EXPECT_EQ(h.glob(), "");
  EXPECT_EQ(h.all_paths(), "");
}

TEST(SampleHierarchy, NoSamplesHasNoLevels) {
  SampleHierarchy h(0, 25);
  EXPECT_EQ(h.levels(), 0);
  EXPECT_EQ(h.glob(), "");
}

TEST(SampleHierarchy, TenSamplesUnderTwentyFiveDirsAreOneLevelOfTwoDigitNames) {
  SampleHierarchy h(10, 25);
  EXPECT_EQ(h.levels(), 1);
  EXPECT_EQ(h.path(0), "00");
  EXPECT_EQ(h.path(9), "09");
  EXPECT_EQ(h.glob(), "*/");
}

TEST(SampleHierarchy, ExactlyLSamplesStayOneLevel) {
  SampleHierarchy h(25, 25);
  EXPECT_EQ(h.levels(), 1);
  EXPECT_EQ(h.path(24), "24");
}

TEST(SampleHierarchy, OneSampleMoreThanLNeedsTwoLevels) {
  SampleHierarchy h(26, 25);
  EXPECT_EQ(h.levels(), 2);
  EXPECT_EQ(h.path(0), "00/00");
  EXPECT_EQ(h.path(24), "00/24");
  EXPECT_EQ(h.path(25), "01/00");
  EXPECT_EQ(h.glob(), "*/*/");
}

TEST(SampleHierarchy, HundredSamplesPutTheLastInThirdDirectorysLastSlot) {
  SampleHierarchy h(100, 25);
  EXPECT_EQ(h.levels(), 2);
  EXPECT_EQ(h.path(99), "03/24");
  EXPECT_EQ(h.path(26), "01/01");
}

TEST(SampleHierarchy, MillionSamplesUnderTwentyFiveNeedFiveLevels) {
  // 25^4 = 390625 < 10^6 <= 25^5.
  SampleHierarchy h(1000000, 25);
  EXPECT_EQ(h.levels(), 5);
  EXPECT_EQ(h.path(0), "00/00/00/00/00");
  // 999999 = 2*25^4 + 13*25^3 + 24*25^2 + 24*25 + 24
  EXPECT_EQ(h.path(999999), "02/13/24/24/24");
  EXPECT_EQ(h.glob(), "*/*/*/*/*/");
}

TEST(SampleHierarchy, ExactPowerOfLDoesNotAddALevel) {
  EXPECT_EQ(SampleHierarchy(390625, 25).levels(), 4);
  EXPECT_EQ(SampleHierarchy(390626, 25).levels(), 5);
}

TEST(SampleHierarchy, DigitsArePaddedToTheWidthOfL) {
  SampleHierarchy h(50, 100);
  EXPECT_EQ(h.levels(), 1);
  EXPECT_EQ(h.path(0), "000");
  EXPECT_EQ(h.path(42), "042");
  EXPECT_EQ(SampleHierarchy(20, 10).path(13), "01/03");
  EXPECT_EQ(SampleHierarchy(5, 9).path(4), "4");
}

TEST(SampleHierarchy, AppendPathAddsToExistingText) {
  SampleHierarchy h(100, 25);
  std::string dir = "/ws/sim/";
  h.append_path(dir, 27);
  EXPECT_EQ(dir, "/ws/sim/01/02");
}

TEST(SampleHierarchy, AllPathsListsEverySampleInOrder) {
  SampleHierarchy h(3, 25);
  EXPECT_EQ(h.all_paths(), "00 01 02");
  EXPECT_EQ(h.all_paths('\n'), "00\n01\n02");
}

TEST(SampleHierarchy, SplitOfWholeTwoLevelRangeGivesOneChildPerTopDirectory) {
  SampleHierarchy h(100, 25);
  EXPECT_EQ(h.split(0, 100), (Ranges{{0, 25}, {25, 50}, {50, 75}, {75, 100}}));
}

TEST(SampleHierarchy, SplitOfOneDirectoryGivesItsSamples) {
  SampleHierarchy h(100, 25);
  auto parts = h.split(25, 50);
  ASSERT_EQ(parts.size(), 25u);
  for (std::uint64_t i = 0; i < 25; ++i) EXPECT_EQ(parts[i], std::make_pair(25 + i, 26 + i));
}

TEST(SampleHierarchy, SplitOfATruncatedLastDirectoryStopsAtN) {
  SampleHierarchy h(60, 25);
  EXPECT_EQ(h.split(0, 60), (Ranges{{0, 25}, {25, 50}, {50, 60}}));
  EXPECT_EQ(h.split(50, 60).size(), 10u);
}

TEST(SampleHierarchy, SplitOfAMillionGivesAtMostLChildrenAlignedToTopDirectories) {
  SampleHierarchy h(1000000, 25);
  auto parts = h.split(0, 1000000);
  EXPECT_LE(parts.size(), 25u);
  expect_exact_cover(parts, 0, 1000000);
  EXPECT_EQ(parts[0], (std::pair<std::uint64_t, std::uint64_t>{0, 390625}));
  // Each child of an aligned range is itself aligned and splits into at most L children.
  for (auto [lo, hi] : parts) {
    auto sub = h.split(lo, hi);
    EXPECT_LE(sub.size(), 25u);
    expect_exact_cover(sub, lo, hi);
  }
}

TEST(SampleHierarchy, SplitOfOneSampleReturnsItself) {
  SampleHierarchy h(100, 25);
  EXPECT_EQ(h.split(7, 8), (Ranges{{7, 8}}));
}

TEST(SampleHierarchy, SplitOfMisalignedRangesCoversThemExactly) {
  SampleHierarchy h(1000, 25);
  const Ranges cases = {{3, 60}, {1, 2}, {24, 26}, {7, 999}, {0, 1000}, {600, 601}, {13, 638}};
  for (auto [lo, hi] : cases) {
    SCOPED_TRACE(testing::Message() << "[" << lo << ", " << hi << ")");
    auto parts = h.split(lo, hi);
    expect_exact_cover(parts, lo, hi);
    if (hi - lo > 1) {
      EXPECT_GE(parts.size(), 2u) << "a wide range must make progress";
    }
  }
}

TEST(SampleHierarchy, SplittingRecursivelyReachesEverySampleOnceInOrder) {
  for (std::uint64_t n : {1ull, 2ull, 25ull, 26ull, 100ull, 626ull, 2000ull}) {
    SCOPED_TRACE(testing::Message() << "N=" << n);
    SampleHierarchy h(n, 25);
    std::vector<std::uint64_t> leaves;
    Ranges stack = {{0, n}};
    while (!stack.empty()) {
      auto [lo, hi] = stack.back();
      stack.pop_back();
      if (hi - lo <= 1) {
        leaves.push_back(lo);
        continue;
      }
      auto parts = h.split(lo, hi);
      ASSERT_LE(parts.size(), 25u);
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) stack.push_back(*it);
    }
    ASSERT_EQ(leaves.size(), n);
    for (std::uint64_t i = 0; i < n; ++i) EXPECT_EQ(leaves[i], i);
  }
}

// The header promises "at most L child ranges" for any [lo, hi). A misaligned range exactly
// L^k wide straddles L+1 directories of width L^(k-1) and comes back in L+1 pieces. Ranges
// produced by the plan are always aligned, so this only matters to other callers.
TEST(SampleHierarchy, MisalignedRangeSplitsIntoAtMostLChildren) {
  SampleHierarchy h(1000, 25);
  auto parts = h.split(1, 626);
  expect_exact_cover(parts, 1, 626);
  EXPECT_LE(parts.size(), 25u);
}

}  // namespace
}  // namespace merlin
