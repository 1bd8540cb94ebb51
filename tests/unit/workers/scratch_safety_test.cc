// Issue #25 items 1, 2 and 12: the scratch tree cannot be hijacked. The user's private dir
// `<root>/merlin-<uid>` is checked (a real directory, ours, 0700; the root above it not open
// to others without the sticky bit), and nothing below it is followed when it is a link:
// neither when the task's scratch is made afresh, nor when outputs are staged out (a link or
// FIFO swapped in after the listing is refused, and does not hang the stager).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>

#include "workers/file_stager.h"

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
// A stager of host nodeA, pid 4242, with `hook` called between listing and copying.
FileStagerOptions node_a(std::function<void(const std::string&)> hook = nullptr) {
  FileStagerOptions o;
  o.host = "nodeA";
  o.pid = 4242;
  o.before_copy = std::move(hook);
  return o;
}
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class ScratchSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/merlin_scratch_safety.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    fs::create_directories(root_ / "scratch");
    fs::permissions(root_ / "scratch", fs::perms(0755));
    spit(victim_file(), "years of work");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string home() const {
    return (root_ / "scratch" / ("merlin-" + std::to_string(::geteuid()))).string();
  }
  fs::path victim() const { return root_ / "victim" / "data"; }
  fs::path victim_file() const { return victim() / "00" / "precious.txt"; }
  RenderedTask task(std::uint64_t sample = 1, const std::string& rel = "00/01") {
    RenderedTask t;
    t.step = "sim";
    t.sample = sample;
    t.step_dir = (root_ / "ws" / "sim").string();
    t.rel_dir = rel;
    t.dir = t.step_dir + "/" + rel;
    t.scratch_home = home();
    t.scratch_dir = home() + "/merlin-ws/sim/" + rel;
    t.stage_in_dir = home() + "/merlin-ws/stage_in";
    t.stage_out = {"result.json"};
    fs::create_directories(t.dir);
    return t;
  }
  // stage_out on another thread, bounded: a stager blocked in open() on a FIFO is freed by
  // opening the FIFO for writing, so that the test fails instead of hanging.
  Result<StageOutReport> bounded_stage_out(FileStager& stager, const RenderedTask& t,
                                           const std::string& fifo, bool* hung) {
    auto f = std::async(std::launch::async, [&] { return stager.stage_out(t); });
    *hung = f.wait_for(std::chrono::seconds(10)) != std::future_status::ready;
    if (*hung) {
      int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (w >= 0) ::close(w);
    }
    return f.get();
  }
  fs::path root_;
  FileStager stager_{node_a()};
};

TEST_F(ScratchSafety, TheUsersScratchIsAPrivateDirUnderTheRoot) {
  auto t = task();
  auto r = stager_.prepare(t);
  ASSERT_TRUE(r.ok()) << r.error().message;
  struct stat st {};
  ASSERT_EQ(::lstat(home().c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_TRUE(fs::is_directory(t.scratch_dir));
}

TEST_F(ScratchSafety, APrivateDirThatIsALinkIsRefusedAndWhatItPointsAtIsUntouched) {
  fs::create_directory_symlink(victim(), home());
  auto t = task(0, "00");  // scratch dir <home>/merlin-ws/sim/00 would be victim/merlin-ws/...
  auto r = stager_.prepare(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_TRUE(has(r.error().message, home())) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "symbolic link")) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "MERLIN_SCRATCH")) << r.error().message;
  EXPECT_EQ(slurp(victim_file()), "years of work");
  EXPECT_FALSE(fs::exists(victim() / "merlin-ws")) << "made directories through the link";
}

TEST_F(ScratchSafety, APrivateDirOwnedByAnotherUserIsRefused) {
  ASSERT_EQ(::mkdir(home().c_str(), 0700), 0);
  if (::chown(home().c_str(), 12345, 12345) != 0) GTEST_SKIP() << "chown needs root";
  auto r = stager_.prepare(task());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_TRUE(has(r.error().message, "owned by uid 12345")) << r.error().message;
}

TEST_F(ScratchSafety, APrivateDirOthersCanEnterIsRefused) {
  ASSERT_EQ(::mkdir(home().c_str(), 0700), 0);
  ASSERT_EQ(::chmod(home().c_str(), 0755), 0);
  auto r = stager_.prepare(task());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_TRUE(has(r.error().message, "mode 0755")) << r.error().message;
  EXPECT_TRUE(has(r.error().message, home())) << r.error().message;
}

TEST_F(ScratchSafety, ARootOthersMayWriteToNeedsTheStickyBit) {
  ASSERT_EQ(::chmod((root_ / "scratch").c_str(), 0777), 0);
  auto r = stager_.prepare(task());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_TRUE(has(r.error().message, "sticky")) << r.error().message;
  EXPECT_TRUE(has(r.error().message, (root_ / "scratch").string())) << r.error().message;
  // Like /tmp: world-writable with the sticky bit, others cannot rename our private dir.
  FileStager fresh(node_a());
  ASSERT_EQ(::chmod((root_ / "scratch").c_str(), 01777), 0);
  auto ok = fresh.prepare(task());
  EXPECT_TRUE(ok.ok()) << ok.error().message;
}

TEST_F(ScratchSafety, ALinkPlantedForTheTaskDirIsRemovedNotFollowed) {
  auto t = task();
  ASSERT_TRUE(stager_.prepare(t).ok());
  fs::remove_all(t.scratch_dir);
  fs::create_directory_symlink(victim(), t.scratch_dir);  // what a leftover process could do
  auto r = stager_.prepare(t);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(slurp(victim_file()), "years of work") << "the victim's data was removed";
  EXPECT_FALSE(fs::is_symlink(t.scratch_dir));
  EXPECT_TRUE(fs::is_directory(t.scratch_dir));
}

TEST_F(ScratchSafety, ALinkPlantedAboveTheTaskDirIsRefusedNotFollowed) {
  auto t = task();
  ASSERT_TRUE(stager_.prepare(t).ok());
  fs::remove_all(home() + "/merlin-ws/sim");
  fs::create_directory_symlink(victim(), home() + "/merlin-ws/sim");
  for (int i = 0; i < 2; ++i) {  // prepare, and clean too
    auto r = i == 0 ? stager_.prepare(t) : stager_.clean(t);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
    EXPECT_TRUE(has(r.error().message, "symbolic link")) << r.error().message;
  }
  EXPECT_EQ(slurp(victim_file()), "years of work");
  EXPECT_FALSE(fs::exists(victim() / "00" / "01"));
}

TEST_F(ScratchSafety, CleaningRemovesLinksInTheScratchDirButNotWhatTheyPointAt) {
  auto t = task();
  ASSERT_TRUE(stager_.prepare(t).ok());
  fs::create_directory_symlink(victim(), t.scratch_dir + "/data");
  ASSERT_TRUE(stager_.clean(t).ok());
  EXPECT_FALSE(fs::exists(t.scratch_dir));
  EXPECT_EQ(slurp(victim_file()), "years of work");
}

TEST_F(ScratchSafety, AProbeThatCannotBeWrittenIsNotLeftBehind) {
  auto t = task();
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // files may not grow here: the probe's write fails
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit none {
      0, 0
    };
    ::setrlimit(RLIMIT_FSIZE, &none);
    FileStager s(node_a());
    auto r = s.prepare(t);
    ::_exit(!r.ok() && has(r.error().message, ".merlin-probe") ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "prepare did not fail on the probe";
  EXPECT_FALSE(fs::exists(t.scratch_dir + "/.merlin-probe")) << "the probe was left behind";
}

TEST_F(ScratchSafety, ALinkedOutputIsNamedAsALinkThatIsNotStaged) {
  auto t = task();
  ASSERT_TRUE(stager_.prepare(t).ok());
  fs::create_symlink(victim_file(), t.scratch_dir + "/result.json");
  auto r = stager_.stage_out(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_TRUE(has(r.error().message, "'result.json'")) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "result.json is a symbolic link")) << r.error().message;
  EXPECT_TRUE(has(r.error().message, "not staged")) << r.error().message;
  EXPECT_FALSE(fs::exists(t.dir + "/result.json"));
}

TEST_F(ScratchSafety, AFifoMatchingAPatternIsRefusedWithoutHanging) {
  auto t = task();
  ASSERT_TRUE(stager_.prepare(t).ok());
  const std::string fifo = t.scratch_dir + "/result.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  bool hung = false;
  auto r = bounded_stage_out(stager_, t, fifo, &hung);
  EXPECT_FALSE(hung) << "the stager blocked on a FIFO";
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_TRUE(has(r.error().message, "result.json is a FIFO")) << r.error().message;
}

TEST_F(ScratchSafety, AFileSwappedForALinkAfterTheListingIsNotCopied) {
  auto t = task();
  FileStager swapping(node_a([&](const std::string& path) {
    fs::remove(path);
    fs::create_symlink(victim_file(), path);
  }));
  ASSERT_TRUE(swapping.prepare(t).ok());
  spit(t.scratch_dir + "/result.json", "{}");
  auto r = swapping.stage_out(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_TRUE(has(r.error().message, "symbolic link")) << r.error().message;
  EXPECT_FALSE(fs::exists(t.dir + "/result.json")) << "copied through a link";
}

TEST_F(ScratchSafety, AFileSwappedForAFifoAfterTheListingIsRefusedWithoutHanging) {
  auto t = task();
  FileStager swapping(node_a([&](const std::string& path) {
    fs::remove(path);
    ::mkfifo(path.c_str(), 0600);
  }));
  ASSERT_TRUE(swapping.prepare(t).ok());
  spit(t.scratch_dir + "/result.json", "{}");
  bool hung = false;
  auto r = bounded_stage_out(swapping, t, t.scratch_dir + "/result.json", &hung);
  EXPECT_FALSE(hung) << "the stager blocked on a FIFO swapped in after the listing";
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_TRUE(has(r.error().message, "is a FIFO, not a regular file: not staged"))
      << r.error().message;
}

}  // namespace
}  // namespace merlin
