// The learning-rate ramp and the normalisation.
#include <cmath>

#include <gtest/gtest.h>

#include "merlin/core/ml/lr_schedule.h"
#include "merlin/core/ml/standardizer.h"

namespace merlin::ml {
namespace {

TEST(LrSchedule, OneRankKeepsTheBaseRate) {
  LrSchedule s{0.01, 1, 10};
  EXPECT_DOUBLE_EQ(learning_rate(s, 0), 0.01);
  EXPECT_DOUBLE_EQ(learning_rate(s, 100), 0.01);
}

TEST(LrSchedule, RampsLinearlyToBaseTimesRanksOverTheWarmup) {
  LrSchedule s{0.01, 4, 10};
  EXPECT_DOUBLE_EQ(learning_rate(s, 0), 0.01);
  EXPECT_DOUBLE_EQ(learning_rate(s, 5), 0.01 * 2.5);
  EXPECT_DOUBLE_EQ(learning_rate(s, 10), 0.04);
  EXPECT_DOUBLE_EQ(learning_rate(s, 1000), 0.04);
  EXPECT_DOUBLE_EQ(learning_rate({0.01, 4, 0}, 0), 0.04) << "no warm-up: scaled at once";
}

TEST(LrSchedule, DecaysByTheFactorEachWholeEpochAfterTheWarmup) {
  // 2 ranks, 10 steps of warm-up, 5 steps an epoch, halving each epoch after the warm-up.
  LrSchedule s{0.01, 2, 10, 0.5, 5};
  EXPECT_DOUBLE_EQ(learning_rate(s, 5), 0.015) << "the ramp is not decayed";
  EXPECT_DOUBLE_EQ(learning_rate(s, 10), 0.02) << "first epoch after the warm-up: full rate";
  EXPECT_DOUBLE_EQ(learning_rate(s, 14), 0.02);
  EXPECT_DOUBLE_EQ(learning_rate(s, 15), 0.01);
  EXPECT_DOUBLE_EQ(learning_rate(s, 20), 0.005);
  EXPECT_DOUBLE_EQ(learning_rate(s, 24), 0.005);
}

TEST(LrSchedule, DecayWithoutWarmupStartsAtTheFirstEpoch) {
  LrSchedule s{0.1, 1, 0, 0.9, 4};
  EXPECT_DOUBLE_EQ(learning_rate(s, 0), 0.1);
  EXPECT_DOUBLE_EQ(learning_rate(s, 3), 0.1);
  EXPECT_DOUBLE_EQ(learning_rate(s, 4), 0.1 * 0.9);
  EXPECT_DOUBLE_EQ(learning_rate(s, 40), 0.1 * std::pow(0.9, 10));
}

TEST(LrSchedule, IsAFunctionOfTheStepSoAResumeContinuesTheSameRates) {
  LrSchedule s{0.01, 2, 6, 0.8, 3};
  std::vector<double> whole;
  for (long step = 0; step < 30; ++step) whole.push_back(learning_rate(s, step));
  for (long step = 17; step < 30; ++step)
    EXPECT_EQ(learning_rate(s, step), whole[step]) << "step " << step;
}

TEST(Standardizer, FitsOnTheChosenRowsOnlyAndRoundTrips) {
  // Two columns; row 2 is not in the fit (its huge values must not move mean or std).
  std::vector<double> data = {1, 10, 3, 10, 1000, 1000, 5, 10};
  auto s = fit_standardizer(data, 2, {0, 1, 3});
  EXPECT_DOUBLE_EQ(s.mean[0], 3);
  EXPECT_DOUBLE_EQ(s.std[0], std::sqrt(8.0 / 3));
  EXPECT_DOUBLE_EQ(s.mean[1], 10);
  EXPECT_DOUBLE_EQ(s.std[1], 1) << "a constant column keeps std 1";
  float z[2];
  s.apply(&data[6], z);
  EXPECT_NEAR(z[0], 2 / std::sqrt(8.0 / 3), 1e-6);
  EXPECT_FLOAT_EQ(z[1], 0);
  double back[2] = {z[0], z[1]};
  s.invert(back);
  EXPECT_NEAR(back[0], 5, 1e-5);
  EXPECT_NEAR(back[1], 10, 1e-12);
}

}  // namespace
}  // namespace merlin::ml
