// Time to accuracy: which epoch first met the bound, the seconds until then, and the JSON.
#include <cmath>

#include <gtest/gtest.h>

#include "merlin/core/ml/model_card.h"
#include "merlin/core/ml/train_report.h"

namespace merlin::ml {
namespace {

std::vector<EpochRecord> history() {
  // The process read its data for 3 s before epoch 1: since_start runs ahead of the epochs.
  return {{1, 0.9, {3.0, 0.5}, 2.0, 0.001, 5.0},
          {2, 0.5, {1.5, 0.4}, 1.0, 0.002, 6.0},
          {3, 0.3, {0.9, 0.3}, 1.5, 0.002, 7.5},
          {4, 0.2, {1.1, 0.2}, 0.5, 0.002, 8.0}};
}

TEST(TrainReport, TimesTheFirstEpochWhoseWorstTargetMeetsTheBoundFromProcessStart) {
  RunFacts f;
  f.train_rows = 100;
  f.target_error = 1.0;
  f.process_seconds = 8.5;
  auto s = summarize(history(), f);
  EXPECT_EQ(s.epochs, 4);
  ASSERT_TRUE(s.epoch_to_target.has_value());
  EXPECT_EQ(*s.epoch_to_target, 3);
  EXPECT_DOUBLE_EQ(*s.seconds_to_target, 7.5) << "from the process start, data reading included";
  EXPECT_DOUBLE_EQ(*s.epoch_seconds_to_target, 4.5) << "the epochs' own seconds";
  EXPECT_DOUBLE_EQ(s.best_val_rmse, 0.9);
  EXPECT_EQ(s.best_epoch, 3);
  EXPECT_DOUBLE_EQ(s.final_val_rmse, 1.1);
  EXPECT_DOUBLE_EQ(s.total_seconds, 8.5);
  EXPECT_DOUBLE_EQ(s.epoch_seconds_total, 5.0);
  EXPECT_DOUBLE_EQ(s.samples_per_second, 400 / 5.0) << "training throughput: epoch seconds";
}

TEST(TrainReport, JsonNamesBothClocksAndTheSavedEpoch) {
  RunFacts f;
  f.target_error = 1.0;
  f.process_seconds = 8.5;
  f.saved_epoch = 3;
  f.stopped_at_target = true;
  auto json = report_json(history(), f);
  for (auto want : {"\"seconds_to_target\": 7.5", "\"epoch_seconds_to_target\": 4.5",
                    "\"total_seconds\": 8.5", "\"epoch_seconds_total\": 5", "\"best_epoch\": 3",
                    "\"saved_epoch\": 3", "\"stopped_at_target\": true", "\"since_start\": 7.5"})
    EXPECT_NE(json.find(want), std::string::npos) << want << "\n" << json;
}

TEST(TrainReport, TargetNeverReachedIsNull) {
  RunFacts f;
  f.target_error = 0.1;
  auto s = summarize(history(), f);
  EXPECT_FALSE(s.seconds_to_target.has_value());
  EXPECT_FALSE(s.epoch_seconds_to_target.has_value());
  auto json = report_json(history(), f);
  EXPECT_NE(json.find("\"seconds_to_target\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"target_error\": 0.1"), std::string::npos) << json;
}

TEST(TrainReport, JsonHoldsRanksRowsTargetsAndHistory) {
  RunFacts f{2, 100,          25,           {"a", "b\"q"}, {4.0, 1.0}, std::nullopt,
             2, std::nullopt, std::nullopt, false};
  auto json = report_json(history(), f);
  for (auto want : {"\"ranks\": 2", "\"train_rows\": 100", "\"val_rows\": 25",
                    "\"targets\": [\"a\", \"b\\\"q\"]", "\"baseline_val_rmse_per_target\": [4, 1]",
                    "\"final_val_rmse_per_target\": [1.1, 0.2]", "\"resumed_from_epoch\": 2",
                    "\"target_error\": null", "{\"epoch\": 3, \"train_loss\": 0.3"})
    EXPECT_NE(json.find(want), std::string::npos) << want << "\n" << json;
}

TEST(TrainReport, EpochLineNamesTargetsWhenSeveral) {
  EpochRecord one{7, 0.25, {1.5}, 0.125, 0.001};
  EXPECT_EQ(epoch_line(one, 10, {"r"}),
            "epoch=7/10 train_loss=0.25 val_rmse=1.5 seconds=0.125 lr=0.001");
  EXPECT_NE(epoch_line(history()[0], 4, {"x", "y"}).find("val_rmse[y]=0.5"), std::string::npos);
}

TEST(TrainReport, MetricsLineCarriesTheEpochAsBudgetAndTheWorstRmseAsValue) {
  EpochRecord one{7, 0.25, {1.5}, 0.125, 0.001};
  EXPECT_EQ(metrics_line(one, {"result/range"}),
            R"({"budget": 7, "value": 1.5, "train_loss": 0.25, "lr": 0.001, "seconds": 0.125})");
  EXPECT_EQ(metrics_line(history()[0], {"x", "y"}),
            R"({"budget": 1, "value": 3, "train_loss": 0.9, "lr": 0.001, )"
            R"("val_rmse": {"x": 3, "y": 0.5}, "seconds": 2})")
      << "several targets: the worst is the value, each is named";
  EpochRecord diverged{2, std::nan(""), {std::nan("")}, 0.5, 0.01};
  EXPECT_EQ(metrics_line(diverged, {"r"}),
            R"({"budget": 2, "value": null, "train_loss": null, "lr": 0.01, "seconds": 0.5})");
}

TEST(TrainReport, NonFiniteNumbersAreNullInJson) {
  EXPECT_EQ(json_number(std::nan("")), "null");
  EXPECT_EQ(json_number(2.5), "2.5");
}

TEST(ModelCard, JsonCarriesNamesLayersAndNormalisation) {
  ModelCard c;
  c.input_names = {"V0"};
  c.target_names = {"range"};
  c.hidden = {8, 4};
  c.inputs = {{35.0}, {14.5}};
  c.targets = {{20.0}, {10.0}};
  auto j = model_card_json(c);
  for (auto want : {"\"inputs\": [\"V0\"]", "\"hidden\": [8, 4]", "\"input_mean\": [35]",
                    "\"target_std\": [10]"})
    EXPECT_NE(j.find(want), std::string::npos) << want << "\n" << j;
}

TEST(ModelCard, FingerprintChangesWithWhatAResumeMustKeep) {
  TrainOptions o;
  ModelCard c;
  c.hidden = {8};
  const auto base = run_fingerprint(o, c, 100, 2);
  EXPECT_EQ(run_fingerprint(o, c, 100, 2), base);
  EXPECT_NE(run_fingerprint(o, c, 100, 1), base) << "ranks";
  EXPECT_NE(run_fingerprint(o, c, 101, 2), base) << "rows";
  auto o2 = o;
  o2.lr = 0.5;
  EXPECT_NE(run_fingerprint(o2, c, 100, 2), base) << "lr";
  auto o3 = o;
  o3.epochs = 999;
  EXPECT_EQ(run_fingerprint(o3, c, 100, 2), base) << "more epochs may be asked for on resume";
  auto o4 = o;
  o4.lr_decay = 0.9;
  EXPECT_NE(run_fingerprint(o4, c, 100, 2), base) << "the decay changes the rates";
  auto o5 = o;
  o5.init_from = "tuned/model";
  EXPECT_NE(run_fingerprint(o5, c, 100, 2), base) << "other starting weights";
  auto o6 = o;
  o6.stop_at_target = true;
  o6.target_error = 0.5;
  EXPECT_EQ(run_fingerprint(o6, c, 100, 2), base) << "stopping does not change an epoch";
  auto o7 = o;
  o7.metrics_file = "trial_03/metrics.jsonl";
  EXPECT_EQ(run_fingerprint(o7, c, 100, 2), base) << "reporting does not change an epoch";
}

}  // namespace
}  // namespace merlin::ml
