// `merlin example` finds its examples relative to the binary once installed (any prefix), and
// in the source tree only when run from the build tree it was built in (issue #15).
#include "merlin/cli/example_dirs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

namespace merlin::cli {
namespace {
namespace fs = std::filesystem;

class ExampleDirsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("example_dirs_" + std::to_string(::getpid()));  // ctest -j: one process per case
    fs::remove_all(root_);
    fs::create_directories(root_ / "build");
    fs::create_directories(root_ / "prefix" / "bin");
    fs::create_directory_symlink(root_ / "build", root_ / "build_link");
  }
  ExampleDirFacts facts(const fs::path& exe_dir) const {
    return {exe_dir, "../share/merlin/examples", root_ / "build", root_ / "src" / "examples"};
  }
  fs::path root_;
};

TEST_F(ExampleDirsTest, InstalledBinaryLooksBesideItsPrefixOnly) {
  auto dirs = example_dir_candidates(facts(root_ / "prefix" / "bin"));
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(dirs[0], root_ / "prefix" / "share" / "merlin" / "examples");
}

TEST_F(ExampleDirsTest, BuildTreeBinaryFallsBackToTheSourceTree) {
  auto dirs = example_dir_candidates(facts(root_ / "build"));
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[1], root_ / "src" / "examples");
}

TEST_F(ExampleDirsTest, BuildTreeReachedThroughASymlinkIsStillTheBuildTree) {
  auto dirs = example_dir_candidates(facts(root_ / "build_link"));
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[1], root_ / "src" / "examples");
}

TEST_F(ExampleDirsTest, UnknownExecutableDirectoryGivesNothing) {
  EXPECT_TRUE(example_dir_candidates(facts("")).empty());
}

}  // namespace
}  // namespace merlin::cli
