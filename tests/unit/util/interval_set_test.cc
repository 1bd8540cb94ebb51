// IntervalSet: a set of sample ids as merged half-open runs.
#include "merlin/core/util/interval_set.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace merlin {
namespace {

TEST(IntervalSet, EmptySetContainsNothing) {
  IntervalSet s;
  EXPECT_FALSE(s.contains(0));
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(s.intervals(), 0u);
}

TEST(IntervalSet, InsertedValuesAreContainedAndNeighboursAreNot) {
  IntervalSet s;
  EXPECT_TRUE(s.insert(5));
  EXPECT_TRUE(s.contains(5));
  EXPECT_FALSE(s.contains(4));
  EXPECT_FALSE(s.contains(6));
  EXPECT_EQ(s.size(), 1u);
}

TEST(IntervalSet, DuplicateInsertReturnsFalseAndDoesNotCount) {
  IntervalSet s;
  EXPECT_TRUE(s.insert(3));
  EXPECT_TRUE(s.insert(4));
  EXPECT_FALSE(s.insert(3));
  EXPECT_FALSE(s.insert(4));
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.intervals(), 1u);
}

TEST(IntervalSet, InOrderInsertsStayOneInterval) {
  IntervalSet s;
  for (std::uint64_t i = 0; i < 100000; ++i) ASSERT_TRUE(s.insert(i));
  EXPECT_EQ(s.size(), 100000u);
  EXPECT_EQ(s.intervals(), 1u);
  EXPECT_TRUE(s.contains(0));
  EXPECT_TRUE(s.contains(99999));
  EXPECT_FALSE(s.contains(100000));
}

TEST(IntervalSet, ReverseOrderInsertsExtendTheRunLeftwards) {
  IntervalSet s;
  for (std::uint64_t i = 100; i-- > 0;) ASSERT_TRUE(s.insert(i));
  EXPECT_EQ(s.size(), 100u);
  EXPECT_EQ(s.intervals(), 1u);
}

TEST(IntervalSet, FillingAGapMergesBothNeighbours) {
  IntervalSet s;
  for (std::uint64_t x : {0, 1, 3, 4}) s.insert(x);
  EXPECT_EQ(s.intervals(), 2u);
  EXPECT_FALSE(s.contains(2));
  EXPECT_TRUE(s.insert(2));
  EXPECT_EQ(s.intervals(), 1u);
  EXPECT_EQ(s.size(), 5u);
  for (std::uint64_t x = 0; x < 5; ++x) EXPECT_TRUE(s.contains(x));
}

TEST(IntervalSet, OutOfOrderInsertsCoalesceOnceComplete) {
  IntervalSet s;
  // Odd ones first, then the evens: 5 runs at worst, 1 at the end.
  for (std::uint64_t x : {1, 3, 5, 7, 9}) s.insert(x);
  EXPECT_EQ(s.intervals(), 5u);
  for (std::uint64_t x : {8, 0, 4, 2, 6}) s.insert(x);
  EXPECT_EQ(s.intervals(), 1u);
  EXPECT_EQ(s.size(), 10u);
  for (std::uint64_t x = 0; x < 10; ++x) EXPECT_TRUE(s.contains(x));
  EXPECT_FALSE(s.contains(10));
}

TEST(IntervalSet, DistantValuesStaySeparateRuns) {
  IntervalSet s;
  s.insert(10);
  s.insert(1000000);
  s.insert(11);
  EXPECT_EQ(s.intervals(), 2u);
  EXPECT_FALSE(s.contains(12));
  EXPECT_FALSE(s.contains(999999));
  EXPECT_TRUE(s.contains(1000000));
}

// Half-open runs cannot hold the largest value: it is refused rather than silently lost
// (regression: it used to be accepted and then read as absent).
TEST(IntervalSet, LargestValueIsRefusedNotSilentlyLost) {
  IntervalSet s;
  const auto max = std::numeric_limits<std::uint64_t>::max();
  EXPECT_FALSE(s.insert(max));
  EXPECT_FALSE(s.contains(max));
  EXPECT_EQ(s.size(), 0u);
  EXPECT_TRUE(s.insert(max - 1));
  EXPECT_TRUE(s.contains(max - 1));
}

}  // namespace
}  // namespace merlin
