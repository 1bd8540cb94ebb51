// Replays every input the fuzz targets once failed on (tests/fuzz/regressions/<target>/) and
// every checked-in seed (tests/fuzz/corpus/<target>/) through the targets' own entry functions
// (tests/fuzz/fuzz_entries.h), in the ordinary build: the fixes stay guarded without clang.
// An error value is a pass; a crash, an uncaught exception or a failed self-check is not.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "merlin/core/broker/task_message.h"
#include "merlin/core/spec/app_config.h"
#include "tests/fuzz/fuzz_entries.h"

namespace fs = std::filesystem;

namespace {

const fs::path kFuzzDir = fs::path(MERLIN_SOURCE_DIR) / "tests" / "fuzz";

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool is_target(const std::string& name) {
  for (const auto& t : merlin::fuzz::targets())
    if (name == t.name) return true;
  return false;
}

// Replays `kind` (regressions or corpus) of every target; returns how many inputs ran.
std::size_t replay(const char* kind) {
  std::size_t n = 0;
  for (const auto& t : merlin::fuzz::targets()) {
    for (const auto& p : files_in(kFuzzDir / kind / t.name)) {
      SCOPED_TRACE(p.string());
      t.run(read_bytes(p));  // returns: that is the assertion (a crash fails the test)
      ++n;
    }
  }
  return n;
}

TEST(FuzzRegressions, EveryFolderNamesATarget) {
  for (const char* kind : {"regressions", "corpus"}) {
    for (const auto& e : fs::directory_iterator(kFuzzDir / kind)) {
      if (!e.is_directory()) continue;
      EXPECT_TRUE(is_target(e.path().filename().string()))
          << e.path() << " is no fuzz target's folder: its inputs would never be replayed";
    }
  }
}

TEST(FuzzRegressions, EveryCrashInputReturns) {
  EXPECT_GT(replay("regressions"), 0u) << "no regression inputs found under " << kFuzzDir;
}

TEST(FuzzRegressions, EverySeedReturns) { EXPECT_GT(replay("corpus"), 0u); }

// The task-message seeds are what the real encoder writes.
TEST(FuzzRegressions, TaskMessageSeedsAreEncoderOutput) {
  const auto seeds = files_in(kFuzzDir / "corpus" / "task_message");
  ASSERT_FALSE(seeds.empty());
  for (const auto& p : seeds) {
    const std::string text = read_bytes(p);
    const auto m = merlin::decode(text);
    ASSERT_TRUE(m) << p;
    EXPECT_EQ(merlin::encode(*m), text) << p;
  }
}

// The app.yaml seeds are files the reader accepts, so fuzzing starts from deep inside it.
TEST(FuzzRegressions, AppYamlSeedsAreRead) {
  const auto seeds = files_in(kFuzzDir / "corpus" / "app_yaml");
  ASSERT_FALSE(seeds.empty());
  for (const auto& p : seeds) {
    auto config = merlin::spec::parse_app_config(read_bytes(p), p.string());
    EXPECT_TRUE(config) << p << ": " << config.error().message;
  }
}

}  // namespace
