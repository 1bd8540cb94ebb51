// merlin-train's command line: defaults, every option, and bad values naming the option.
#include <gtest/gtest.h>

#include "merlin/core/ml/train_options.h"

namespace merlin::ml {
namespace {

Result<TrainCommand> parse(std::vector<std::string> args) { return parse_train_command(args); }

TEST(TrainOptions, DefaultsNeedOnlyDataAndTarget) {
  auto c = parse({"--data", "d.h5", "--target", "result/range"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto& o = std::get<TrainOptions>(*c);
  EXPECT_EQ(o.data, "d.h5");
  EXPECT_EQ(o.targets, std::vector<std::string>{"result/range"});
  EXPECT_TRUE(o.inputs.empty());
  EXPECT_EQ(o.hidden, (std::vector<int>{64, 64}));
  EXPECT_EQ(o.optimizer, OptimizerKind::kAdam);
  EXPECT_FALSE(o.target_error.has_value());
  EXPECT_TRUE(o.checkpoint_dir.empty());
  EXPECT_FALSE(o.stop_at_target) << "all epochs unless asked";
  EXPECT_DOUBLE_EQ(o.lr_decay, 1.0) << "no decay unless asked";
  EXPECT_TRUE(o.init_from.empty());
}

TEST(TrainOptions, StopAtTargetIsASwitchThatNeedsATargetError) {
  auto c = parse({"--data", "d", "--target", "x", "--stop-at-target", "--target-error", "0.2",
                  "--lr-decay=0.95", "--init-from", "tuned/model"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto& o = std::get<TrainOptions>(*c);
  EXPECT_TRUE(o.stop_at_target);
  EXPECT_DOUBLE_EQ(*o.target_error, 0.2);
  EXPECT_DOUBLE_EQ(o.lr_decay, 0.95);
  EXPECT_EQ(o.init_from, "tuned/model");
}

TEST(TrainOptions, ParsesEveryOptionWithSpaceOrEquals) {
  auto c = parse({"train",      "--data=d.h5",
                  "--inputs",   "V0,ANGLE",
                  "--target",   "a,b",
                  "--hidden",   "32,16,8",
                  "--lr",       "5e-4",
                  "--batch=16", "--epochs",
                  "7",          "--val-fraction",
                  "0.25",       "--seed",
                  "42",         "--optimizer",
                  "sgd",        "--warmup-epochs",
                  "2",          "--checkpoint",
                  "ck",         "--checkpoint-every",
                  "3",          "--target-error",
                  "0.5",        "--out",
                  "m",          "--min-rows",
                  "4"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto& o = std::get<TrainOptions>(*c);
  EXPECT_EQ(o.inputs, (std::vector<std::string>{"V0", "ANGLE"}));
  EXPECT_EQ(o.targets, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.hidden, (std::vector<int>{32, 16, 8}));
  EXPECT_DOUBLE_EQ(o.lr, 5e-4);
  EXPECT_EQ(o.batch, 16);
  EXPECT_EQ(o.epochs, 7);
  EXPECT_DOUBLE_EQ(o.val_fraction, 0.25);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(o.optimizer, OptimizerKind::kSgd);
  EXPECT_EQ(o.warmup_epochs, 2);
  EXPECT_EQ(o.checkpoint_dir, "ck");
  EXPECT_EQ(o.checkpoint_every, 3);
  ASSERT_TRUE(o.target_error.has_value());
  EXPECT_DOUBLE_EQ(*o.target_error, 0.5);
  EXPECT_EQ(o.out, "m");
  EXPECT_EQ(o.min_rows, 4);
}

TEST(TrainOptions, MetricsNamesTheFileEachEpochIsAppendedTo) {
  auto c = parse({"--data", "d.h5", "--target", "r", "--metrics", "trial_03/metrics.jsonl"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(std::get<TrainOptions>(*c).metrics_file, "trial_03/metrics.jsonl");
  auto none = parse({"--data", "d.h5", "--target", "r"});
  EXPECT_TRUE(std::get<TrainOptions>(*none).metrics_file.empty()) << "no file unless asked";
}

TEST(TrainOptions, BadValuesAreBadInputNamingTheOption) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--target", "x"}, "--data is required"},
      {{"--data", "d.h5"}, "--target is required"},
      {{"--data", "d", "--target", "x", "--lr", "fast"}, "--lr: 'fast' is not a number"},
      {{"--data", "d", "--target", "x", "--lr", "-1"}, "--lr: must be > 0"},
      {{"--data", "d", "--target", "x", "--batch", "0"}, "--batch: 0 is below 1"},
      {{"--data", "d", "--target", "x", "--epochs", "2.5"}, "--epochs: '2.5' is not an integer"},
      {{"--data", "d", "--target", "x", "--val-fraction", "1"}, "--val-fraction: must be between"},
      {{"--data", "d", "--target", "x", "--hidden", "64,x"}, "--hidden: 'x' is not an integer"},
      {{"--data", "d", "--target", "x", "--optimizer", "lbfgs"}, "'lbfgs' is not adam or sgd"},
      {{"--data", "d", "--target", "x", "--frobnicate", "1"}, "unknown option '--frobnicate'"},
      {{"--data", "d", "--target"}, "--target needs a value"},
      {{"--data", "d", "--target", "x", "--stop-at-target"},
       "--stop-at-target needs --target-error"},
      {{"--data", "d", "--target", "x", "--stop-at-target=yes"}, "--stop-at-target takes no value"},
      {{"--data", "d", "--target", "x", "--lr-decay", "0"}, "--lr-decay: must be in (0, 1]"},
      {{"--data", "d", "--target", "x", "--lr-decay", "1.5"}, "--lr-decay: must be in (0, 1]"},
      {{"--data", "d", "--target", "x", "--init-from="}, "--init-from: give a model"},
      {{"--data", "d", "--target", "x", "--metrics="}, "--metrics: give a file"},
  };
  for (const auto& [args, want] : cases) {
    auto c = parse(args);
    ASSERT_FALSE(c.ok()) << want;
    EXPECT_EQ(c.error().code, ErrorCode::kBadInput);
    EXPECT_NE(c.error().message.find(want), std::string::npos) << c.error().message;
  }
}

TEST(TrainOptions, PredictModeNeedsModelAndInputs) {
  auto c = parse({"predict", "--model", "m", "--inputs", "x.npy", "--out", "p.csv"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto& p = std::get<PredictOptions>(*c);
  EXPECT_EQ(p.model, "m");
  EXPECT_EQ(p.inputs, "x.npy");
  EXPECT_EQ(p.out, "p.csv");
  auto bad = parse({"predict", "--model", "m"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad.error().message.find("--inputs is required"), std::string::npos);
}

TEST(TrainOptions, HelpAnywhereGivesTheUsage) {
  auto c = parse({"--data", "d", "--help"});
  ASSERT_TRUE(c.ok());
  EXPECT_NE(std::get<HelpRequest>(*c).text.find("--checkpoint DIR"), std::string::npos);
  EXPECT_NE(std::get<HelpRequest>(*c).text.find("--metrics FILE"), std::string::npos);
}

TEST(TrainOptions, SplitListDropsEmptyParts) {
  EXPECT_EQ(split_list("a,,b,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(split_list("").empty());
}

}  // namespace
}  // namespace merlin::ml
