// FileStager on real files in a temporary directory: outputs copied under a temp name and
// renamed, manifest lines with sizes and CRC32C, glob selection, missing patterns, unusable
// scratch, stale temp files of dead processes, stage-in once per node.
#include "workers/file_stager.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "merlin/core/util/crc32c.h"
#include "workers/staging_rules.h"

namespace merlin {
namespace {
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
void spit(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

class StagerFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("merlin_stager_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  RenderedTask task(std::uint64_t sample, const std::string& rel) {
    RenderedTask t;
    t.step = "sim";
    t.sample = sample;
    t.step_dir = (root_ / "ws" / "sim").string();
    t.rel_dir = rel;
    t.dir = t.step_dir + "/" + rel;
    t.scratch_home = home();
    t.scratch_dir = home() + "/merlin-ws/sim/" + rel;
    t.stage_in_dir = home() + "/merlin-ws/stage_in";
    t.stage_out = {"result.json", "*.npy"};
    fs::create_directories(t.dir);
    return t;
  }
  /// The user's private dir under the scratch root `root_/scratch`.
  std::string home() const {
    return (root_ / "scratch" / ("merlin-" + std::to_string(::geteuid()))).string();
  }
  std::vector<std::string> temps_under(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (parse_temp_name(e.path().filename().string())) out.push_back(e.path().string());
    return out;
  }
  fs::path root_;
  FileStager stager_{FileStagerOptions{"nodeA", 4242, nullptr}};
};

TEST_F(StagerFiles, SelectedOutputsAreCopiedAndRecordedWithSizeAndCrc32c) {
  auto t = task(7, "00/07");
  ASSERT_TRUE(stager_.prepare(t).ok());
  ASSERT_TRUE(fs::is_directory(t.scratch_dir));
  spit(t.scratch_dir + "/result.json", "{\"k\": 7}\n");
  spit(t.scratch_dir + "/a.npy", std::string(300000, 'a'));
  spit(t.scratch_dir + "/b.npy", "bb");
  spit(t.scratch_dir + "/other.txt", "not declared");
  spit(t.scratch_dir + "/sub/deep.npy", "not at the top");
  auto r = stager_.stage_out(t);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(slurp(t.dir + "/result.json"), "{\"k\": 7}\n");
  EXPECT_EQ(slurp(t.dir + "/a.npy"), std::string(300000, 'a'));
  EXPECT_EQ(slurp(t.dir + "/b.npy"), "bb");
  EXPECT_FALSE(fs::exists(t.dir + "/other.txt"));
  EXPECT_FALSE(fs::exists(t.dir + "/sub"));
  EXPECT_TRUE(temps_under(t.dir).empty());
  EXPECT_EQ(r->bytes, 9u + 300000u + 2u);

  const std::string manifest = stager_.manifest_path(t.step_dir);
  EXPECT_EQ(manifest, t.step_dir + "/.merlin_staged/nodeA.4242.tsv");
  auto entries = read_manifest(slurp(manifest));
  ASSERT_EQ(entries.size(), 3u);
  auto e = entries.at({7, "00/07/a.npy"});
  EXPECT_EQ(e.size, 300000u);
  EXPECT_EQ(e.crc32c, crc32c(std::string(300000, 'a')));
  EXPECT_EQ(entries.at({7, "00/07/result.json"}).crc32c, crc32c("{\"k\": 7}\n"));

  ASSERT_TRUE(stager_.clean(t).ok());
  EXPECT_FALSE(fs::exists(t.scratch_dir));
}

TEST_F(StagerFiles, ASuccessRecordIsReadBackOnThisBootNeverStagedAndGoesWithTheScratch) {
  auto t = task(3, "00/03");
  t.stage_out = {"*"};
  ASSERT_TRUE(stager_.prepare(t).ok());
  EXPECT_FALSE(stager_.success_record(t)) << "none yet";
  spit(t.scratch_dir + "/result.json", "{}");
  ASSERT_TRUE(stager_.record_success(t, 4.25, true).ok());
  auto r = stager_.success_record(t);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->seconds, 4.25);
  EXPECT_TRUE(r->write_finished);
  // Another boot's stager (a reboot) does not believe it.
  FileStagerOptions other{"nodeA", 4242, nullptr};
  other.boot_id = "another-boot";
  FileStager rebooted(other);
  EXPECT_FALSE(rebooted.success_record(t));
  // `*` does not stage it (hidden), and neither does naming it.
  t.stage_out = {"*", kSuccessRecordName};
  auto staged = stager_.stage_out(t);
  EXPECT_FALSE(staged.ok()) << "the record is not a step's output";
  t.stage_out = {"*"};
  staged = stager_.stage_out(t);
  ASSERT_TRUE(staged.ok()) << staged.error().message;
  EXPECT_FALSE(fs::exists(t.dir + "/" + kSuccessRecordName));
  stager_.drop_success_record(t);
  EXPECT_FALSE(stager_.success_record(t));
  ASSERT_TRUE(stager_.record_success(t, 1, true).ok());
  ASSERT_TRUE(stager_.clean(t).ok());
  EXPECT_FALSE(stager_.success_record(t));
}

TEST_F(StagerFiles, ASuccessRecordThatIsALinkIsNotBelieved) {
  auto t = task(4, "00/04");
  ASSERT_TRUE(stager_.prepare(t).ok());
  spit((root_ / "elsewhere").string(), format_success_record({"x", 1, true}));
  fs::create_symlink(root_ / "elsewhere", t.scratch_dir + "/" + kSuccessRecordName);
  EXPECT_FALSE(stager_.success_record(t));
}

TEST_F(StagerFiles, OutputsInSubdirectoriesKeepTheirRelativePaths) {
  auto t = task(5, "00/05");
  t.stage_out = {"out/deep/*.json"};
  ASSERT_TRUE(stager_.prepare(t).ok());
  spit(t.scratch_dir + "/out/deep/a.json", "[1]");
  auto r = stager_.stage_out(t);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(slurp(t.dir + "/out/deep/a.json"), "[1]");
  auto entries = read_manifest(slurp(stager_.manifest_path(t.step_dir)));
  ASSERT_EQ(entries.count({5, "00/05/out/deep/a.json"}), 1u);
}

TEST_F(StagerFiles, APatternMatchingNothingIsAnErrorNamingIt) {
  auto t = task(3, "00/03");
  ASSERT_TRUE(stager_.prepare(t).ok());
  spit(t.scratch_dir + "/result.json", "{}");
  auto r = stager_.stage_out(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_NE(r.error().message.find("'*.npy'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(t.scratch_dir), std::string::npos) << r.error().message;
  EXPECT_FALSE(fs::exists(stager_.manifest_path(t.step_dir)));
}

TEST_F(StagerFiles, AnUnusableScratchIsAnErrorNamingThePath) {
  auto t = task(1, "00/01");
  spit(root_ / "scratch", "a file where the scratch root should be");
  auto r = stager_.prepare(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find(root_.string() + "/scratch"), std::string::npos)
      << r.error().message;
}

TEST_F(StagerFiles, StagingAgainOverwritesAndTheManifestKeepsTheLastEntry) {
  auto t = task(2, "00/02");
  t.stage_out = {"result.json"};
  ASSERT_TRUE(stager_.prepare(t).ok());
  spit(t.scratch_dir + "/result.json", "first");
  ASSERT_TRUE(stager_.stage_out(t).ok());
  ASSERT_TRUE(stager_.prepare(t).ok());  // a retry: scratch made afresh
  EXPECT_FALSE(fs::exists(t.scratch_dir + "/result.json"));
  spit(t.scratch_dir + "/result.json", "second run");
  ASSERT_TRUE(stager_.stage_out(t).ok());
  EXPECT_EQ(slurp(t.dir + "/result.json"), "second run");
  const std::string text = slurp(stager_.manifest_path(t.step_dir));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  auto entries = read_manifest(text);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries.begin()->second.size, 10u);
  EXPECT_EQ(entries.begin()->second.crc32c, crc32c("second run"));
}

TEST_F(StagerFiles, TempFilesOfDeadProcessesOnThisHostAreRemoved) {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // a pid nobody holds now
  auto t = task(4, "00/04");
  t.stage_out = {"result.json"};
  const std::string dead = t.dir + "/" + temp_name("result.json", "nodeA", child);
  const std::string other_host = t.dir + "/" + temp_name("result.json", "nodeB", child);
  spit(dead, "half a cop");
  spit(other_host, "may be in progress there");
  ASSERT_TRUE(stager_.prepare(t).ok());
  spit(t.scratch_dir + "/result.json", "whole");
  ASSERT_TRUE(stager_.stage_out(t).ok());
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(other_host)) << "another node's process may still be copying";
}

TEST_F(StagerFiles, StageInCopiesOncePerNodeAndLinksIntoEachTask) {
  const std::string table = (root_ / "spec" / "table.dat").string();
  spit(table, "shared table");
  auto a = task(0, "00/00");
  auto b = task(1, "00/01");
  a.stage_in = b.stage_in = {table};
  ASSERT_TRUE(stager_.prepare(a).ok());
  struct stat first {};
  ASSERT_EQ(::stat((a.stage_in_dir + "/table.dat").c_str(), &first), 0);
  ASSERT_TRUE(stager_.prepare(b).ok());
  struct stat second {};
  ASSERT_EQ(::stat((b.stage_in_dir + "/table.dat").c_str(), &second), 0);
  EXPECT_EQ(first.st_ino, second.st_ino) << "copied again although unchanged";
  EXPECT_TRUE(fs::is_symlink(a.scratch_dir + "/table.dat"));
  EXPECT_EQ(slurp(b.scratch_dir + "/table.dat"), "shared table");
  // A changed source (size) is copied again.
  spit(table, "a longer shared table");
  ASSERT_TRUE(stager_.prepare(a).ok());
  EXPECT_EQ(slurp(a.scratch_dir + "/table.dat"), "a longer shared table");
  // Links are not outputs, even when a pattern would match them.
  a.stage_out = {"*.dat"};
  auto r = stager_.stage_out(a);
  EXPECT_FALSE(r.ok());
}

TEST_F(StagerFiles, AMissingStageInFileIsAnErrorNamingIt) {
  auto t = task(0, "00/00");
  t.stage_in = {(root_ / "nowhere.dat").string()};
  auto r = stager_.prepare(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_NE(r.error().message.find("nowhere.dat"), std::string::npos) << r.error().message;
}

TEST_F(StagerFiles, TidyingRemovesStageInAndEmptyDirsButKeepsFailedTasksScratch) {
  const std::string table = (root_ / "spec" / "table.dat").string();
  spit(table, "t");
  auto ok_task = task(0, "00/00");
  auto failed = task(1, "00/01");
  ok_task.stage_in = failed.stage_in = {table};
  ASSERT_TRUE(stager_.prepare(ok_task).ok());
  ASSERT_TRUE(stager_.prepare(failed).ok());
  spit(failed.scratch_dir + "/core", "what the failed step left");
  ASSERT_TRUE(stager_.clean(ok_task).ok());
  const std::string study = home() + "/merlin-ws";
  EXPECT_FALSE(tidy_study_scratch(study));
  EXPECT_FALSE(fs::exists(study + "/stage_in"));
  EXPECT_FALSE(fs::exists(study + "/sim/00/00"));
  EXPECT_TRUE(fs::exists(failed.scratch_dir + "/core"));
  fs::remove_all(failed.scratch_dir);
  EXPECT_TRUE(tidy_study_scratch(study));
  EXPECT_FALSE(fs::exists(study));
  EXPECT_TRUE(fs::is_directory(home())) << "the private dir stays: other studies may use it";
}

}  // namespace
}  // namespace merlin
