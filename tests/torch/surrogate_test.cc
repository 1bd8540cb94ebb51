// The torch trainer through its torch-free header, on a recording Communicator: how often it
// communicates (one allreduce per step: every gradient in one buffer), that it learns, and that
// a checkpointed run resumes to the same end. Built only with libtorch (merlin_torch_tests).
#include <chrono>
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "adapters/ml/torch/surrogate.h"
#include "merlin/core/ml/checkpoint_files.h"
#include "merlin/core/ml/train_report.h"
#include "tests/unit/samples/sample_test_files.h"

namespace merlin::torchml {
namespace {

using samples::testing::ScratchDir;

// One rank that counts its collectives and the sizes it was handed.
class RecordingCommunicator final : public ml::Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Result<void> allreduce_sum(float*, std::size_t n) override {
    ++float_allreduces;
    float_sizes.push_back(n);
    return ok();
  }
  Result<void> allreduce_sum(double*, std::size_t) override {
    ++double_allreduces;
    return ok();
  }
  Result<void> broadcast(float*, std::size_t n, int root) override {
    ++broadcasts;
    broadcast_size = n;
    return ok();
  }
  Result<void> barrier() override { return ok(); }
  void abort_all(int) override {}
  int float_allreduces = 0, double_allreduces = 0, broadcasts = 0;
  std::size_t broadcast_size = 0;
  std::vector<std::size_t> float_sizes;
};

// y = 3 x0 - 2 x1 + 1 on a grid: 100 rows.
ml::TrainingSet linear_set(const ml::TrainOptions& o) {
  data::DatasetColumns c;
  c.input_names = {"x0", "x1"};
  c.target_names = {"y"};
  for (int i = 0; i < 100; ++i) {
    const double x0 = (i % 10) / 10.0, x1 = (i / 10) / 10.0;
    c.sample_ids.push_back(i);
    c.inputs.insert(c.inputs.end(), {x0, x1});
    c.targets.push_back(3 * x0 - 2 * x1 + 1);
  }
  c.rows_committed = 100;
  c.file_rows.resize(100);
  for (std::uint64_t i = 0; i < 100; ++i) c.file_rows[i] = i;
  const auto y = c.targets;
  auto read = [&y](const std::vector<std::uint64_t>& rows) -> Result<std::vector<double>> {
    std::vector<double> out;
    for (auto r : rows) out.push_back(y[r]);
    return out;
  };
  ml::SingleProcess one;
  return std::move(*ml::make_training_set(c, read, o, one));
}

ml::TrainOptions options(const std::string& out) {
  ml::TrainOptions o;
  o.data = "linear";
  o.targets = {"y"};
  o.hidden = {8};
  o.batch = 10;
  o.epochs = 12;
  o.lr = 1e-2;
  o.out = out;
  return o;
}

// The validation RMSE of the model saved in `dir`, evaluated afresh: the validation rows,
// mapped back to input units, through predict_surrogate (as `merlin-train predict` reads it).
double saved_model_val_rmse(const std::string& dir, const ml::TrainingSet& set) {
  const auto& c = set.card;
  const std::size_t rows = set.val_shard_rows();
  std::vector<double> x;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < set.n_in; ++j)
      x.push_back(set.x_val[r * set.n_in + j] * c.inputs.std[j] + c.inputs.mean[j]);
  auto y = predict_surrogate(dir, x, set.n_in, nullptr);
  EXPECT_TRUE(y.ok()) << y.error().message;
  if (!y.ok()) return -1;
  double sq = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const double truth = set.y_val[r] * c.targets.std[0] + c.targets.mean[0];
    sq += ((*y)[r] - truth) * ((*y)[r] - truth);
  }
  return std::sqrt(sq / static_cast<double>(rows));
}

double worst_of(const TrainOutcome& r, int epoch) {
  return ml::worst_rmse(r.history[static_cast<std::size_t>(epoch - 1)]);
}

TEST(SurrogateTrainer, OneAllreducePerStepHoldingEveryGradientAndTheLoss) {
  ScratchDir dir;
  auto o = options(dir.file("m"));
  auto set = linear_set(o);
  RecordingCommunicator comm;
  auto r = train_surrogate(set, o, comm, {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const int steps = 8;  // 80 training rows in batches of 10
  EXPECT_EQ(comm.float_allreduces, o.epochs * steps);
  EXPECT_EQ(comm.double_allreduces, o.epochs) << "one validation sum per epoch";
  EXPECT_EQ(comm.broadcasts, 1);
  const std::size_t params = (2 * 8 + 8) + (8 + 1);
  EXPECT_EQ(comm.broadcast_size, params);
  for (auto n : comm.float_sizes) ASSERT_EQ(n, params + 1) << "gradients and the loss";
  EXPECT_TRUE(std::filesystem::exists(dir.file("m/model.pt")));
}

TEST(SurrogateTrainer, LearnsALinearMapWellBelowTheMeanBaseline) {
  ScratchDir dir;
  auto o = options(dir.file("m"));
  o.epochs = 60;
  auto set = linear_set(o);
  ml::SingleProcess comm;
  auto r = train_surrogate(set, o, comm, {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_LT(r->history.back().val_rmse[0], set.baseline_rmse[0] / 5)
      << "baseline " << set.baseline_rmse[0];
  // predict reads the model back: the same inputs give the targets.
  ml::ModelCard card;
  auto y = predict_surrogate(dir.file("m"), {0.5, 0.5, 0.0, 0.9}, 2, &card);
  ASSERT_TRUE(y.ok()) << y.error().message;
  EXPECT_EQ(card.target_names, std::vector<std::string>{"y"});
  EXPECT_NEAR((*y)[0], 3 * 0.5 - 2 * 0.5 + 1, 0.3);
  EXPECT_NEAR((*y)[1], -2 * 0.9 + 1, 0.3);
  auto wrong = predict_surrogate(dir.file("m"), {1, 2, 3}, 3, nullptr);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, ErrorCode::kBadInput);
}

TEST(SurrogateTrainer, ResumingFromACheckpointEndsWhereAnUninterruptedRunDoes) {
  ScratchDir dir;
  auto o = options(dir.file("a"));
  auto set = linear_set(o);
  ml::SingleProcess comm;
  auto whole = train_surrogate(set, o, comm, {});
  ASSERT_TRUE(whole.ok()) << whole.error().message;

  auto part = options(dir.file("b"));
  part.checkpoint_dir = dir.file("ck");
  part.checkpoint_every = 5;
  part.epochs = 5;  // "killed" after epoch 5's checkpoint
  ASSERT_TRUE(train_surrogate(set, part, comm, {}).ok());
  auto ckpts = ml::list_checkpoints(part.checkpoint_dir);
  ASSERT_TRUE(ckpts.ok());
  ASSERT_EQ(ckpts->back().epoch, 5);
  part.epochs = o.epochs;
  std::vector<std::string> lines;
  auto resumed =
      train_surrogate(set, part, comm, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(resumed.ok()) << resumed.error().message;
  EXPECT_EQ(resumed->resumed_from_epoch, 5);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("resumed from ", 0), 0u) << lines[0];
  ASSERT_EQ(resumed->history.size(), whole->history.size());
  for (std::size_t i = 0; i < whole->history.size(); ++i) {
    EXPECT_EQ(resumed->history[i].val_rmse, whole->history[i].val_rmse) << "epoch " << i + 1;
    EXPECT_EQ(resumed->history[i].train_loss, whole->history[i].train_loss) << "epoch " << i + 1;
  }
}

TEST(SurrogateTrainer, OnEpochSeesEachEpochTrainedHereBeforeItsCheckpoint) {
  ScratchDir dir;
  auto o = options(dir.file("a"));
  o.checkpoint_dir = dir.file("ck");
  o.checkpoint_every = 1000;  // one checkpoint, after the last epoch: a tuned trial's rung
  o.epochs = 4;
  auto set = linear_set(o);
  ml::SingleProcess comm;
  std::vector<int> seen;
  std::vector<std::size_t> checkpoints_then;
  auto on_epoch = [&](const ml::EpochRecord& r) -> Result<void> {
    seen.push_back(r.epoch);
    checkpoints_then.push_back(ml::list_checkpoints(o.checkpoint_dir)->size());
    return ok();
  };
  ASSERT_TRUE(train_surrogate(set, o, comm, {}, std::chrono::steady_clock::now(), on_epoch).ok());
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(checkpoints_then, (std::vector<std::size_t>{0, 0, 0, 0}))
      << "the epoch is reported before its checkpoint is written";
  seen.clear();
  o.epochs = 7;  // promoted: the same run, a larger budget
  auto r = train_surrogate(set, o, comm, {}, std::chrono::steady_clock::now(), on_epoch);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->resumed_from_epoch, 4);
  EXPECT_EQ(seen, (std::vector<int>{5, 6, 7})) << "only the epochs trained after the resume";
  auto failing = [](const ml::EpochRecord&) -> Result<void> {
    return Error::runtime("cannot write --metrics file m");
  };
  o.checkpoint_dir = dir.file("ck2");
  auto f = train_surrogate(set, o, comm, {}, std::chrono::steady_clock::now(), failing);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("--metrics"), std::string::npos) << f.error().message;
  EXPECT_TRUE(ml::list_checkpoints(o.checkpoint_dir)->empty()) << "it ended at the first epoch";
}

TEST(SurrogateTrainer, CheckpointOfOtherOptionsIsRefused) {
  ScratchDir dir;
  auto o = options(dir.file("a"));
  o.checkpoint_dir = dir.file("ck");
  o.epochs = 5;
  auto set = linear_set(o);
  ml::SingleProcess comm;
  ASSERT_TRUE(train_surrogate(set, o, comm, {}).ok());
  o.lr = 0.5;
  auto r = train_surrogate(set, o, comm, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("other options"), std::string::npos) << r.error().message;
}

TEST(SurrogateTrainer, AHugeRateDivergesWithAnErrorNotANanModel) {
  ScratchDir dir;
  auto o = options(dir.file("a"));
  o.optimizer = ml::OptimizerKind::kSgd;
  o.lr = 1e8;
  auto set = linear_set(o);
  ml::SingleProcess comm;
  auto r = train_surrogate(set, o, comm, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_NE(r.error().message.find("training diverged"), std::string::npos) << r.error().message;
  EXPECT_FALSE(std::filesystem::exists(dir.file("a/model.pt")));
}

TEST(SurrogateTrainer, StopsAtTheFirstEpochWithinTheTargetAndSavesThatModel) {
  ScratchDir dir;
  auto o = options(dir.file("m"));
  o.epochs = 200;
  auto set = linear_set(o);
  o.target_error = set.baseline_rmse[0] / 4;
  o.stop_at_target = true;
  ml::SingleProcess comm;
  std::vector<std::string> lines;
  auto r = train_surrogate(set, o, comm, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_LT(r->history.size(), 200u) << "the target is reached well before 200 epochs";
  EXPECT_TRUE(r->stopped_at_target);
  const int last = r->history.back().epoch;
  EXPECT_LE(worst_of(*r, last), *o.target_error);
  for (int e = 1; e < last; ++e) EXPECT_GT(worst_of(*r, e), *o.target_error) << "epoch " << e;
  EXPECT_EQ(r->saved_epoch, last) << "the first epoch within the target is the best so far";
  const double again = saved_model_val_rmse(dir.file("m"), set);
  EXPECT_NEAR(again, worst_of(*r, r->saved_epoch), 1e-4 * again);
  EXPECT_LE(again, *o.target_error * (1 + 1e-4));
  EXPECT_NE(lines.back().find("target reached"), std::string::npos) << lines.back();
}

TEST(SurrogateTrainer, SavesTheBestValidationEpochNotTheLast) {
  // Large steps make the validation error go up and down; some rate below leaves a last epoch
  // worse than an earlier one (checked), and every run saves its best (a run may diverge).
  int runs = 0, last_not_best = 0;
  for (double lr : {0.2, 0.1, 0.05, 0.02}) {
    ScratchDir dir;
    auto o = options(dir.file("m"));
    o.optimizer = ml::OptimizerKind::kSgd;
    o.lr = lr;
    o.epochs = 30;
    auto set = linear_set(o);
    ml::SingleProcess comm;
    auto r = train_surrogate(set, o, comm, {});
    if (!r.ok()) continue;
    ++runs;
    int best = 1;
    for (const auto& rec : r->history)
      if (ml::worst_rmse(rec) < worst_of(*r, best)) best = rec.epoch;
    if (best != o.epochs) ++last_not_best;
    EXPECT_EQ(r->saved_epoch, best) << "lr " << lr;
    EXPECT_FALSE(r->stopped_at_target);
    const double again = saved_model_val_rmse(dir.file("m"), set);
    EXPECT_NEAR(again, worst_of(*r, best), 1e-4 * again) << "lr " << lr;
  }
  EXPECT_GE(runs, 2);
  EXPECT_GE(last_not_best, 1) << "no run where the last epoch was not the best: a weak test";
}

TEST(SurrogateTrainer, ResumingARunThatStoppedAtTheTargetTrainsNoFurther) {
  ScratchDir dir;
  auto o = options(dir.file("m"));
  o.epochs = 200;
  o.checkpoint_dir = dir.file("ck");
  auto set = linear_set(o);
  o.target_error = set.baseline_rmse[0] / 4;
  o.stop_at_target = true;
  ml::SingleProcess comm;
  auto first = train_surrogate(set, o, comm, {});
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto again = train_surrogate(set, o, comm, {});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->history.size(), first->history.size());
  EXPECT_EQ(again->saved_epoch, first->saved_epoch) << "the best is kept in the checkpoint";
}

TEST(SurrogateTrainer, LrDecayMultipliesTheRateEachEpochAfterTheWarmup) {
  ScratchDir dir;
  auto o = options(dir.file("m"));
  o.warmup_epochs = 2;
  o.lr_decay = 0.5;
  auto set = linear_set(o);
  ml::SingleProcess comm;
  auto r = train_surrogate(set, o, comm, {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  // The recorded rate is that of each epoch's last step.
  EXPECT_DOUBLE_EQ(r->history[1].lr, o.lr) << "warm-up: not decayed";
  EXPECT_DOUBLE_EQ(r->history[2].lr, o.lr) << "first epoch after the warm-up";
  EXPECT_DOUBLE_EQ(r->history[3].lr, o.lr * 0.5);
  EXPECT_DOUBLE_EQ(r->history[11].lr, o.lr * std::pow(0.5, 9));
}

TEST(SurrogateTrainer, ADecayedRunResumedFromACheckpointEndsWhereAnUninterruptedRunDoes) {
  ScratchDir dir;
  auto o = options(dir.file("a"));
  o.warmup_epochs = 2;
  o.lr_decay = 0.8;
  auto set = linear_set(o);
  ml::SingleProcess comm;
  auto whole = train_surrogate(set, o, comm, {});
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  auto part = o;
  part.out = dir.file("b");
  part.checkpoint_dir = dir.file("ck");
  part.epochs = 7;  // "killed" after epoch 7, inside the decay
  ASSERT_TRUE(train_surrogate(set, part, comm, {}).ok());
  part.epochs = o.epochs;
  auto resumed = train_surrogate(set, part, comm, {});
  ASSERT_TRUE(resumed.ok()) << resumed.error().message;
  EXPECT_EQ(resumed->resumed_from_epoch, 7);
  ASSERT_EQ(resumed->history.size(), whole->history.size());
  for (std::size_t i = 0; i < whole->history.size(); ++i) {
    EXPECT_EQ(resumed->history[i].lr, whole->history[i].lr) << "epoch " << i + 1;
    EXPECT_EQ(resumed->history[i].val_rmse, whole->history[i].val_rmse) << "epoch " << i + 1;
  }
  EXPECT_EQ(resumed->saved_epoch, whole->saved_epoch) << "the best so far is in the checkpoint";
}

TEST(SurrogateTrainer, WarmStartBeginsFromTheOtherRunsWeightsAtEpochZero) {
  ScratchDir dir;
  auto tuned = options(dir.file("tuned"));
  tuned.epochs = 60;
  auto set = linear_set(tuned);
  ml::SingleProcess comm;
  auto a = train_surrogate(set, tuned, comm, {});
  ASSERT_TRUE(a.ok()) << a.error().message;

  auto cold = options(dir.file("cold"));
  cold.epochs = 1;
  auto c = train_surrogate(set, cold, comm, {});
  ASSERT_TRUE(c.ok());
  auto warm = cold;
  warm.out = dir.file("warm");
  warm.init_from = dir.file("tuned");  // a model directory
  std::vector<std::string> lines;
  auto w = train_surrogate(set, warm, comm, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_EQ(w->history.size(), 1u) << "epoch 0, not the tuned run's 60";
  EXPECT_LT(worst_of(*w, 1), worst_of(*c, 1) / 2) << "starts near the tuned model";
  EXPECT_NE(lines.at(0).find("warm start from"), std::string::npos) << lines.at(0);

  // A checkpoint file works as well (it records its architecture).
  auto ck = options(dir.file("ckrun"));
  ck.epochs = 3;
  ck.checkpoint_dir = dir.file("ck");
  ASSERT_TRUE(train_surrogate(set, ck, comm, {}).ok());
  warm.init_from = dir.file("ck");
  warm.out = dir.file("warm2");
  EXPECT_TRUE(train_surrogate(set, warm, comm, {}).ok());
}

TEST(SurrogateTrainer, WarmStartFromAnotherArchitectureIsRefusedNamingTheFile) {
  ScratchDir dir;
  auto tuned = options(dir.file("tuned"));
  tuned.epochs = 1;
  auto set = linear_set(tuned);
  ml::SingleProcess comm;
  ASSERT_TRUE(train_surrogate(set, tuned, comm, {}).ok());
  auto other = options(dir.file("other"));
  other.hidden = {16, 4};
  other.init_from = dir.file("tuned");
  auto other_set = linear_set(other);
  auto r = train_surrogate(other_set, other, comm, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  const auto& m = r.error().message;
  EXPECT_NE(m.find(dir.file("tuned/model.pt")), std::string::npos) << m;
  EXPECT_NE(m.find("hidden widths: it has 8, this run 16,4"), std::string::npos) << m;

  other.hidden = {8};
  other.init_from = dir.file("nowhere");
  auto missing = train_surrogate(other_set, other, comm, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos)
      << missing.error().message;
}

}  // namespace
}  // namespace merlin::torchml
