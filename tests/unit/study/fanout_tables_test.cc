// FanoutTables and the renderer on a fan-out step (docs/fanout.md): expansion checks and
// copies the producer's file once; tasks read their values and directories from the copy.
#include "merlin/core/study/fanout_tables.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/fakes/test_study.h"

namespace merlin {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSpec = R"Y(
description: {name: fan, description: d}
global.parameters:
  K: {values: [a, b], label: K.%%}
study:
  - name: propose
    description: d
    run:
      cmd: echo $(K)
  - name: trial
    description: d
    run:
      cmd: run --lr $(LR) --width $(WIDTH) --id $(MERLIN_SAMPLE_ID) in $(MERLIN_SAMPLE_PATH)
      depends: [propose]
      samples_from:
        file: $(propose.workspace)/next.csv
        column_labels: [LR, WIDTH]
        max_rows: 30
)Y";

class FanoutTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    ws_ = fs::path(::testing::TempDir()) /
          (std::string("fanout_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(ws_);
    fs::create_directories(ws_ / "merlin_info");
    study_ = testing::make_study(kSpec, 0, ws_.string());
    ASSERT_TRUE(study_);
    a_ = study_->instance("trial", 0);
    b_ = study_->instance("trial", 1);
  }
  void TearDown() override { fs::remove_all(ws_); }

  // Writes propose's file for combination `k` ("a" or "b").
  void write_rows(const std::string& k, std::uint64_t n, const std::string& extra = "") {
    fs::create_directories(ws_ / "propose" / ("K." + k));
    std::ofstream out(ws_ / "propose" / ("K." + k) / "next.csv");
    for (std::uint64_t i = 0; i < n; ++i) out << "0." << i << "," << 10 * i << "\n";
    out << extra;
  }
  const FanoutTables& tables() const { return study_->renderer->fanout(); }

  fs::path ws_;
  std::unique_ptr<testing::TestStudy> study_;
  InstanceId a_, b_;
};

TEST_F(FanoutTablesTest, EachCombinationExpandsItsOwnProducersFile) {
  write_rows("a", 3);
  write_rows("b", 27);
  EXPECT_EQ(tables().source_path(a_), (ws_ / "propose/K.a/next.csv").string());
  ASSERT_TRUE(tables().expand(a_).ok());
  EXPECT_EQ(*tables().expand(a_), 3u);
  EXPECT_EQ(*tables().expand(b_), 27u);
  EXPECT_TRUE(fs::exists(ws_ / "merlin_info/fanout/trial_K.a.csv"));
  EXPECT_EQ(tables().hierarchy(b_).levels(), 2) << "27 rows > 25 per level";
}

TEST_F(FanoutTablesTest, RendererReadsValuesAndDirectoriesFromTheInstancesTable) {
  write_rows("b", 27);
  ASSERT_TRUE(tables().expand(b_).ok());
  ASSERT_TRUE(study_->renderer->check_samples(b_).ok());
  auto t = study_->renderer->render(b_, 26, TaskKind::kCmd);
  EXPECT_EQ(t.dir, (ws_ / "trial/K.b/01/01").string());
  EXPECT_NE(t.script_text.find("run --lr 0.26 --width 260 --id 26 in 01/01"), std::string::npos)
      << t.script_text;
  bool lr = false;
  for (const auto& [k, v] : t.env) lr |= k == "LR" && v == "0.26";
  EXPECT_TRUE(lr) << "a fan-out step's labels are exported as the study's are";
}

TEST_F(FanoutTablesTest, TheFirstCopyWinsWhenTheProducerRewritesItsFile) {
  write_rows("a", 3);
  ASSERT_EQ(*tables().expand(a_), 3u);
  write_rows("a", 9);
  auto again = study_->renderer->fanout().expand(a_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 3u) << "the copy in merlin_info is the instance's rows";
  // Another process (a worker, a restart) reads the same copy.
  auto other = testing::make_study(kSpec, 0, ws_.string());
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->renderer->fanout().expanded(a_));
  EXPECT_EQ(*other->renderer->fanout().expand(a_), 3u);
}

TEST_F(FanoutTablesTest, BadFilesAreErrorsNamingStepAndFile) {
  auto missing = tables().expand(a_);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
  EXPECT_NE(
      missing.error().message.find("step 'trial' (samples_from " +
                                   (ws_ / "propose/K.a/next.csv").string() + "): file not found"),
      std::string::npos)
      << missing.error().message;
  auto why = study_->renderer->check_samples(a_);
  ASSERT_FALSE(why.ok()) << "the worker fails the task with the same reason";
  EXPECT_EQ(why.error().message, missing.error().message);

  write_rows("b", 31);
  auto many = tables().expand(b_);
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.error().message.find("more than max_rows (30) rows"), std::string::npos);
  EXPECT_FALSE(tables().expanded(b_)) << "nothing is copied for a bad file";
}

TEST_F(FanoutTablesTest, WrongColumnsAndUnsafeValuesAreRefused) {
  write_rows("a", 0, "1,2,3\n");
  auto cols = tables().expand(a_);
  ASSERT_FALSE(cols.ok());
  EXPECT_EQ(cols.error().code, ErrorCode::kBadInput);
  EXPECT_NE(cols.error().message.find("rows have 3 columns but column_labels names 2"),
            std::string::npos);
  write_rows("b", 0, "1,$(reboot)\n");
  auto unsafe = tables().expand(b_);
  ASSERT_FALSE(unsafe.ok());
  EXPECT_EQ(unsafe.error().code, ErrorCode::kBadInput);
  EXPECT_NE(unsafe.error().message.find("column 'WIDTH', has shell metacharacters"),
            std::string::npos)
      << unsafe.error().message;
}

}  // namespace
}  // namespace merlin
