// GuardedProcess and merlin-guard: a step reports its own exit, and dies with its worker.
#include "workers/guarded_spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "merlin/util/files.h"
#include "workers/step_output.h"

extern char** environ;

namespace merlin {
namespace {
namespace fs = std::filesystem;

class GuardedSpawnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("guarded_spawn_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  SpawnRequest bash(const std::string& script) const {
    SpawnRequest r;
    r.argv = {"bash", "-c", script};
    for (char** e = environ; *e; ++e) r.env.emplace_back(*e);
    r.cwd = dir_.string();
    return r;
  }

  fs::path dir_;
};

// Running and not a zombie (an init that does not reap leaves those).
bool alive(pid_t pid) {
  auto stat = files::read("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  auto close = stat->rfind(')');
  return close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] != 'Z' &&
         (*stat)[close + 2] != 'X';
}

pid_t pid_in(const fs::path& file) {
  for (int i = 0; i < 1000; ++i) {  // up to 10 s
    std::ifstream in(file);
    pid_t pid = 0;
    if (in >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

bool gone_within(pid_t pid, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!alive(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST_F(GuardedSpawnTest, TheStepsExitStatusAndSignalComeBackUnchanged) {
  auto exited = GuardedProcess::start(bash("exit 143"), {});
  ASSERT_TRUE(exited.ok()) << exited.error().message;
  auto s = exited->wait();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(WIFEXITED(*s));
  EXPECT_EQ(WEXITSTATUS(*s), 143);

  auto killed = GuardedProcess::start(bash("kill -SEGV $$"), {});
  ASSERT_TRUE(killed.ok()) << killed.error().message;
  s = killed->wait();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(WIFSIGNALED(*s));
  EXPECT_EQ(WTERMSIG(*s), SIGSEGV);
}

TEST_F(GuardedSpawnTest, TheStepRunsInTheGuardiansProcessGroupInItsCwdWithItsFds) {
  int out = ::open((dir_ / "out").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(out, 3);
  auto r = bash("echo $(ps -o pgid= $$) $(pwd) $(ls /proc/self/fd | wc -l); read x || echo eof");
  r.stdio = {-1, out, out};
  auto p = GuardedProcess::start(r, {});
  ::close(out);
  ASSERT_TRUE(p.ok()) << p.error().message;
  const pid_t group = p->group();
  auto s = p->wait();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(WEXITSTATUS(*s), 0);
  // ls's fds: 0 1 2 and the one it reads the directory with.
  EXPECT_EQ(*files::read((dir_ / "out").string()),
            std::to_string(group) + " " + dir_.string() + " 4\neof\n");
}

TEST_F(GuardedSpawnTest, AProgramNotFoundIsAnErrorThatSaysSo) {
  auto r = bash("true");
  r.argv[0] = "no-such-shell-anywhere";
  auto p = GuardedProcess::start(r, {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("No such file"), std::string::npos) << p.error().message;

  r.argv[0] = (dir_ / "not-executable").string();
  std::ofstream(r.argv[0]) << "#!/bin/sh\n";
  auto q = GuardedProcess::start(r, {});
  ASSERT_TRUE(q.ok()) << q.error().message;  // the guardian starts; the exec fails in it
  auto s = q->wait();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("Permission denied"), std::string::npos) << s.error().message;
}

TEST_F(GuardedSpawnTest, AMissingGuardianIsAnErrorNamingIt) {
  GuardOptions g;
  g.program = (dir_ / "no-merlin-guard").string();
  auto p = GuardedProcess::start(bash("true"), g);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("no-merlin-guard"), std::string::npos) << p.error().message;
}

TEST_F(GuardedSpawnTest, TheStepAndWhatItStartedDieWhenTheGuardiansParentIsKilled) {
  // A stand-in worker: a bash that starts the guardian as its child (the protocol's arguments
  // by hand, fd 3 to /dev/null), and is then killed with SIGKILL.
  const std::string step = "sleep 300 & echo $! > " + (dir_ / "bg.pid").string() + "; echo $$ > " +
                           (dir_ / "step.pid").string() + "; sleep 300";
  SpawnRequest worker =
      bash(guard_program() + " $$ 5000 /bin/bash bash -c '" + step + "' 3>/dev/null & wait");
  auto w = GuardedProcess::start(worker, {});  // only for its process group and wait
  ASSERT_TRUE(w.ok()) << w.error().message;
  const pid_t step_pid = pid_in(dir_ / "step.pid");
  const pid_t bg_pid = pid_in(dir_ / "bg.pid");
  ASSERT_GT(step_pid, 0);
  ASSERT_GT(bg_pid, 0);
  ASSERT_TRUE(alive(step_pid));
  // The stand-in's bash is the guardian's parent; find it as the parent of the inner guardian.
  auto stat = files::read("/proc/" + std::to_string(step_pid) + "/stat");
  ASSERT_TRUE(stat.ok());
  long guardian = 0, stand_in = 0;
  ASSERT_EQ(std::sscanf(stat->c_str() + stat->rfind(')') + 1, " %*c %ld", &guardian), 1);
  stat = files::read("/proc/" + std::to_string(guardian) + "/stat");
  ASSERT_TRUE(stat.ok());
  ASSERT_EQ(std::sscanf(stat->c_str() + stat->rfind(')') + 1, " %*c %ld", &stand_in), 1);
  ASSERT_EQ(::kill(static_cast<pid_t>(stand_in), SIGKILL), 0);
  EXPECT_TRUE(gone_within(step_pid, std::chrono::seconds(10)));
  EXPECT_TRUE(gone_within(bg_pid, std::chrono::seconds(10)));
  EXPECT_TRUE(gone_within(static_cast<pid_t>(guardian), std::chrono::seconds(10)));
  auto s = w->wait();
  ASSERT_TRUE(s.ok());
}

TEST(StepOutput, TheMarkerNamesTheAttemptTheReasonAndTheTimeInUtc) {
  EXPECT_EQ(attempt_marker(2, "retry", 1795555800),
            "==== merlin: attempt 2 (retry), 2026-11-24T21:30:00Z ====\n");
}

}  // namespace
}  // namespace merlin
