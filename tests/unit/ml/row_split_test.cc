// The split, the shards and the epoch orders: pure functions of their arguments.
#include <algorithm>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include "merlin/core/ml/row_split.h"

namespace merlin::ml {
namespace {

std::vector<std::size_t> sorted(std::vector<std::size_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(RowSplit, PermutationHoldsEveryIndexOnceAndDependsOnTheKey) {
  auto a = permutation(100, 7), b = permutation(100, 7), c = permutation(100, 8);
  std::vector<std::size_t> all(100);
  std::iota(all.begin(), all.end(), std::size_t{0});
  EXPECT_EQ(sorted(a), all);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, all) << "shuffled";
}

TEST(RowSplit, HoldsOutTheFractionDisjointlyAndCoversEveryRow) {
  auto s = split_rows(500, 0.2, 3);
  EXPECT_EQ(s.val.size(), 100u);
  EXPECT_EQ(s.train.size(), 400u);
  std::set<std::size_t> seen(s.train.begin(), s.train.end());
  seen.insert(s.val.begin(), s.val.end());
  EXPECT_EQ(seen.size(), 500u);
  EXPECT_EQ(split_rows(500, 0.2, 3).val, s.val) << "same seed, same split";
  EXPECT_NE(split_rows(500, 0.2, 4).val, s.val);
}

TEST(RowSplit, KeepsAtLeastOneRowOnEachSide) {
  EXPECT_EQ(split_rows(2, 0.01, 1).val.size(), 1u);
  EXPECT_EQ(split_rows(2, 0.99, 1).train.size(), 1u);
}

TEST(RowSplit, TrainShardsAreEqualSizedAndDisjoint) {
  std::vector<std::size_t> rows(11);
  std::iota(rows.begin(), rows.end(), std::size_t{100});
  auto s0 = train_shard(rows, 0, 3), s1 = train_shard(rows, 1, 3), s2 = train_shard(rows, 2, 3);
  EXPECT_EQ(s0, (std::vector<std::size_t>{100, 103, 106}));
  EXPECT_EQ(s1, (std::vector<std::size_t>{101, 104, 107}));
  EXPECT_EQ(s2, (std::vector<std::size_t>{102, 105, 108}));
  EXPECT_EQ(train_shard(rows, 0, 1), rows) << "one rank trains on every row";
}

TEST(RowSplit, StridedShardsCoverEveryValidationRow) {
  std::vector<std::size_t> rows = {5, 6, 7, 8, 9};
  EXPECT_EQ(strided_shard(rows, 0, 2), (std::vector<std::size_t>{5, 7, 9}));
  EXPECT_EQ(strided_shard(rows, 1, 2), (std::vector<std::size_t>{6, 8}));
}

TEST(RowSplit, EpochOrderDiffersByEpochAndRankAndRepeatsForTheSameOnes) {
  EXPECT_EQ(epoch_order(50, 1, 3, 0), epoch_order(50, 1, 3, 0));
  EXPECT_NE(epoch_order(50, 1, 3, 0), epoch_order(50, 1, 4, 0));
  EXPECT_NE(epoch_order(50, 1, 3, 0), epoch_order(50, 1, 3, 1));
  EXPECT_NE(epoch_order(50, 1, 3, 0), epoch_order(50, 2, 3, 0));
  EXPECT_EQ(steps_per_epoch(130, 64), 3u);
  EXPECT_EQ(steps_per_epoch(128, 64), 2u);
}

}  // namespace
}  // namespace merlin::ml
