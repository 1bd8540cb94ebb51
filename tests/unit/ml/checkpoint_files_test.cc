// Checkpoint names, the newest one, and which to prune.
#include <fstream>

#include <gtest/gtest.h>

#include "merlin/core/ml/checkpoint_files.h"
#include "tests/unit/samples/sample_test_files.h"

namespace merlin::ml {
namespace {

using samples::testing::ScratchDir;

TEST(CheckpointFiles, NamesRoundTripAndOtherNamesAreNotCheckpoints) {
  EXPECT_EQ(checkpoint_name(12), "epoch-000012.ckpt");
  EXPECT_EQ(checkpoint_epoch("epoch-000012.ckpt"), 12);
  EXPECT_EQ(checkpoint_epoch(checkpoint_name(1234567)), 1234567);
  EXPECT_FALSE(checkpoint_epoch(checkpoint_temp_name(12, 99)).has_value());
  EXPECT_FALSE(checkpoint_epoch("epoch-.ckpt").has_value());
  EXPECT_FALSE(checkpoint_epoch("epoch-12x.ckpt").has_value());
  EXPECT_FALSE(checkpoint_epoch("model.pt").has_value());
}

TEST(CheckpointFiles, ListsByEpochIgnoringTemporariesAndMissingDirectory) {
  ScratchDir dir;
  auto none = list_checkpoints(dir.file("absent"));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  for (auto name : {checkpoint_name(10), checkpoint_name(5), checkpoint_temp_name(15, 1),
                    std::string("notes.txt")})
    std::ofstream(dir.file(name)) << "x";
  auto all = list_checkpoints(dir.file(""));
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].epoch, 5);
  EXPECT_EQ((*all)[1].epoch, 10);
  EXPECT_EQ((*all)[1].path, dir.file(checkpoint_name(10)));
}

TEST(CheckpointFiles, PrunesAllButTheNewest) {
  std::vector<CheckpointFile> all = {{"a", 5}, {"b", 10}, {"c", 15}};
  auto old = checkpoints_beyond(all, 2);
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].epoch, 5);
  EXPECT_TRUE(checkpoints_beyond(all, 3).empty());
}

}  // namespace
}  // namespace merlin::ml
