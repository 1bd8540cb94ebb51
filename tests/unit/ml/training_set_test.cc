// From dataset rows to one rank's standardised shard.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "merlin/ml/training_set.h"

namespace merlin::ml {
namespace {

data::DatasetColumns columns(std::size_t rows) {
  data::DatasetColumns c;
  c.input_names = {"x"};
  c.target_names = {"y"};
  for (std::size_t r = 0; r < rows; ++r) {
    c.sample_ids.push_back(r);
    c.inputs.push_back(static_cast<double>(r));
    c.targets.push_back(2.0 * static_cast<double>(r) + 1);
  }
  c.rows_committed = rows;
  return c;
}

TrainOptions options() {
  TrainOptions o;
  o.data = "d.h5";
  o.targets = {"y"};
  o.val_fraction = 0.2;
  return o;
}

TEST(TrainingSet, RanksShareTheTrainingRowsAndTheStatistics) {
  auto a = make_training_set(columns(101), options(), 0, 2);
  auto b = make_training_set(columns(101), options(), 1, 2);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->val_rows_total, 20u);
  EXPECT_EQ(a->train_rows_total, 80u) << "81 training rows, one left out for equal shards";
  EXPECT_EQ(a->shard_rows(), 40u);
  EXPECT_EQ(b->shard_rows(), 40u);
  EXPECT_EQ(a->val_shard_rows() + b->val_shard_rows(), 20u);
  EXPECT_EQ(a->card.inputs.mean, b->card.inputs.mean);
  EXPECT_NE(a->x_train, b->x_train);
  // Standardised: this rank's rows have mean near 0 (the fit is over both shards).
  double m = 0;
  for (float v : a->x_train) m += v;
  EXPECT_NEAR(m / 40, 0, 0.3);
}

TEST(TrainingSet, BaselineIsTheErrorOfPredictingTheTrainingMean) {
  auto one = make_training_set(columns(50), options(), 0, 1);
  ASSERT_TRUE(one.ok());
  // y = 2x + 1 over x ~ U{0..49}: std about 2 × 14.4; the baseline is close to it.
  EXPECT_GT(one->baseline_rmse[0], 20);
  EXPECT_LT(one->baseline_rmse[0], 40);
  EXPECT_EQ(one->card.target_names, std::vector<std::string>{"y"});
}

TEST(TrainingSet, TheSplitFollowsSampleIdsNotTheOrderRowsWereCollectedIn) {
  auto c = columns(60);
  auto reversed = c;
  std::reverse(reversed.sample_ids.begin(), reversed.sample_ids.end());
  std::reverse(reversed.inputs.begin(), reversed.inputs.end());
  std::reverse(reversed.targets.begin(), reversed.targets.end());
  auto a = make_training_set(c, options(), 0, 1);
  auto b = make_training_set(reversed, options(), 0, 1);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->x_val, b->x_val);
  EXPECT_EQ(a->x_train, b->x_train);
  EXPECT_EQ(a->card.targets.mean, b->card.targets.mean);
}

TEST(TrainingSet, TooFewRowsIsBadInputNamingTheFile) {
  auto r = make_training_set(columns(5), options(), 0, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("d.h5: 5 usable rows"), std::string::npos) << r.error().message;
  auto o = options();
  o.min_rows = 2;
  auto ranks = make_training_set(columns(3), o, 0, 4);
  ASSERT_FALSE(ranks.ok());
  EXPECT_NE(ranks.error().message.find("training rows for 4 ranks"), std::string::npos);
}

}  // namespace
}  // namespace merlin::ml
