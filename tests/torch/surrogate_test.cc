// The torch trainer through its torch-free header, on a recording Communicator: how often it
// communicates (one allreduce per step: every gradient in one buffer), that it learns, and that
// a checkpointed run resumes to the same end. Built only with libtorch (merlin_torch_tests).
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "adapters/ml/torch/surrogate.h"
#include "merlin/core/ml/checkpoint_files.h"
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

}  // namespace
}  // namespace merlin::torchml
