// From a dataset's index to one rank's standardised shard: the split, the statistics summed
// over ranks (ranks as threads), and reading only a rank's own rows.
#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "merlin/core/ml/training_set.h"
#include "tests/fakes/threaded_communicator.h"

namespace merlin::ml {
namespace {

// x = row, y = 2x + 1, sample id = row; file row = 10 + row (some rows before were unusable).
data::DatasetColumns index_of(std::size_t rows) {
  data::DatasetColumns c;
  c.input_names = {"x"};
  c.target_names = {"y"};
  for (std::size_t r = 0; r < rows; ++r) {
    c.sample_ids.push_back(r);
    c.file_rows.push_back(10 + r);
    c.inputs.push_back(static_cast<double>(r));
  }
  c.rows_committed = rows + 10;
  return c;
}

// Targets by file row, recording what was asked for.
struct Reader {
  std::vector<std::uint64_t> asked;
  TargetReader fn() {
    return [this](const std::vector<std::uint64_t>& rows) -> Result<std::vector<double>> {
      asked.insert(asked.end(), rows.begin(), rows.end());
      std::vector<double> y;
      for (auto r : rows) y.push_back(2.0 * static_cast<double>(r - 10) + 1);
      return y;
    };
  }
};

TrainOptions options() {
  TrainOptions o;
  o.data = "d.h5";
  o.targets = {"y"};
  o.val_fraction = 0.2;
  return o;
}

Result<TrainingSet> one_rank(const data::DatasetColumns& c, Reader& reader,
                             const TrainOptions& o = options()) {
  SingleProcess comm;
  return make_training_set(c, reader.fn(), o, comm);
}

// Both ranks' sets, each built on its own thread.
std::vector<Result<TrainingSet>> two_ranks(const data::DatasetColumns& c, Reader* readers) {
  testing::ThreadedCommunicators comms(2);
  std::vector<Result<TrainingSet>> out(2, Error::runtime("not run"));
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back(
        [&, r] { out[r] = make_training_set(c, readers[r].fn(), options(), comms.rank(r)); });
  for (auto& t : threads) t.join();
  return out;
}

TEST(TrainingSet, RanksShareTheRowsAndGetTheStatisticsOfOneRank) {
  auto c = index_of(101);
  Reader single, pair[2];
  auto whole = one_rank(c, single);
  auto sets = two_ranks(c, pair);
  ASSERT_TRUE(whole.ok() && sets[0].ok() && sets[1].ok());
  auto& a = *sets[0];
  auto& b = *sets[1];
  EXPECT_EQ(a.val_rows_total, 20u);
  EXPECT_EQ(a.train_rows_total, 80u) << "81 training rows, one left out for equal shards";
  EXPECT_EQ(a.shard_rows(), 40u);
  EXPECT_EQ(b.shard_rows(), 40u);
  EXPECT_EQ(a.val_shard_rows() + b.val_shard_rows(), 20u);
  EXPECT_NE(a.x_train, b.x_train);
  for (auto* s : {&a, &b}) {
    EXPECT_EQ(s->card.inputs.mean, whole->card.inputs.mean);
    EXPECT_NEAR(s->card.targets.mean[0], whole->card.targets.mean[0], 1e-9);
    EXPECT_NEAR(s->card.targets.std[0], whole->card.targets.std[0], 1e-9);
    EXPECT_NEAR(s->baseline_rmse[0], whole->baseline_rmse[0], 1e-9);
  }
}

TEST(TrainingSet, EachRankReadsTheTargetsOfItsOwnRowsOnly) {
  auto c = index_of(101);
  Reader single, pair[2];
  ASSERT_TRUE(one_rank(c, single).ok());
  auto sets = two_ranks(c, pair);
  ASSERT_TRUE(sets[0].ok() && sets[1].ok());
  std::set<std::uint64_t> r0(pair[0].asked.begin(), pair[0].asked.end());
  std::set<std::uint64_t> r1(pair[1].asked.begin(), pair[1].asked.end());
  EXPECT_EQ(r0.size() + r1.size(), 101u) << "every row read once, by one rank";
  for (auto r : r0) EXPECT_FALSE(r1.count(r)) << "row " << r << " read by both";
  EXPECT_EQ(single.asked.size(), 101u);
  EXPECT_GE(*std::min_element(single.asked.begin(), single.asked.end()), 10u) << "file rows";
}

TEST(TrainingSet, BaselineIsTheErrorOfPredictingTheTrainingMean) {
  Reader reader;
  auto one = one_rank(index_of(50), reader);
  ASSERT_TRUE(one.ok());
  // y = 2x + 1 over x ~ U{0..49}: std about 2 × 14.4; the baseline is close to it.
  EXPECT_GT(one->baseline_rmse[0], 20);
  EXPECT_LT(one->baseline_rmse[0], 40);
  EXPECT_EQ(one->card.target_names, std::vector<std::string>{"y"});
}

TEST(TrainingSet, TheSplitFollowsSampleIdsNotTheOrderRowsWereCollectedIn) {
  auto c = index_of(60);
  auto reversed = c;
  std::reverse(reversed.sample_ids.begin(), reversed.sample_ids.end());
  std::reverse(reversed.file_rows.begin(), reversed.file_rows.end());
  std::reverse(reversed.inputs.begin(), reversed.inputs.end());
  Reader ra, rb;
  auto a = one_rank(c, ra);
  auto b = one_rank(reversed, rb);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->x_val, b->x_val);
  EXPECT_EQ(a->x_train, b->x_train);
  EXPECT_EQ(a->y_train, b->y_train);
  EXPECT_EQ(a->card.targets.mean, b->card.targets.mean);
}

TEST(TrainingSet, TooFewRowsIsBadInputNamingTheFile) {
  Reader reader;
  auto r = one_rank(index_of(5), reader);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("d.h5: 5 usable rows"), std::string::npos) << r.error().message;
  EXPECT_TRUE(reader.asked.empty()) << "refused before reading targets";
}

TEST(TrainingSet, FewerTrainingRowsThanRanksIsBadInput) {
  auto o = options();
  o.min_rows = 2;
  testing::ThreadedCommunicators comms(4);
  Reader reader;
  // Refused before any collective, so one rank alone can be asked.
  auto r = make_training_set(index_of(3), reader.fn(), o, comms.rank(0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("2 training rows for 4 ranks"), std::string::npos)
      << r.error().message;
}

TEST(TrainingSet, ReaderErrorsComeBack) {
  SingleProcess comm;
  auto failing = [](const std::vector<std::uint64_t>&) -> Result<std::vector<double>> {
    return Error::runtime("d.h5: cannot read /fields/y");
  };
  auto r = make_training_set(index_of(50), failing, options(), comm);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_EQ(r.error().message, "d.h5: cannot read /fields/y");
}

}  // namespace
}  // namespace merlin::ml
