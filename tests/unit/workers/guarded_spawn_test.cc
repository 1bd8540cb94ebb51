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

#include "merlin/core/util/files.h"
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
  EXPECT_EQ(p.error().code, ErrorCode::kRuntime);
  EXPECT_NE(p.error().message.find("No such file"), std::string::npos) << p.error().message;

  r.argv[0] = (dir_ / "not-executable").string();
  std::ofstream(r.argv[0]) << "#!/bin/sh\n";
  auto q = GuardedProcess::start(r, {});
  ASSERT_TRUE(q.ok()) << q.error().message;  // the guardian starts; the exec fails in it
  auto s = q->wait();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kRuntime);
  EXPECT_NE(s.error().message.find("Permission denied"), std::string::npos) << s.error().message;
}

TEST_F(GuardedSpawnTest, AMissingGuardianIsAnErrorNamingIt) {
  GuardOptions g;
  g.program = (dir_ / "no-merlin-guard").string();
  auto p = GuardedProcess::start(bash("true"), g);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kRuntime);
  EXPECT_NE(p.error().message.find("no-merlin-guard"), std::string::npos) << p.error().message;
}

// Starts a stand-in worker: a bash that starts the guardian as its child (the protocol's
// arguments by hand, fd 3 to /dev/null) on `step`, which writes its pid to step.pid and its
// background child's to bg.pid. Kills the stand-in with SIGKILL once they run, and says
// whether the step, its child and the guardian are all gone within 10 s.
void expect_all_gone_after_the_parent_dies(const fs::path& dir, const std::string& step_text,
                                           int kill_wait_ms) {
  SpawnRequest worker;
  worker.argv = {"bash", "-c",
                 guard_program() + " $$ " + std::to_string(kill_wait_ms) +
                     " 0 /bin/bash bash -c '" + step_text + "' 3>/dev/null & wait"};
  for (char** e = environ; *e; ++e) worker.env.emplace_back(*e);
  worker.cwd = dir.string();
  auto w = GuardedProcess::start(worker, {});  // for its process group and wait
  ASSERT_TRUE(w.ok()) << w.error().message;
  const pid_t step_pid = pid_in(dir / "step.pid");
  const pid_t bg_pid = pid_in(dir / "bg.pid");
  ASSERT_GT(step_pid, 0);
  ASSERT_GT(bg_pid, 0);
  ASSERT_TRUE(alive(step_pid));
  // The guardian is the step's parent, the stand-in the guardian's.
  auto parent_of = [](pid_t pid) {
    auto stat = files::read("/proc/" + std::to_string(pid) + "/stat");
    long ppid = 0;
    if (stat.ok()) std::sscanf(stat->c_str() + stat->rfind(')') + 1, " %*c %ld", &ppid);
    return static_cast<pid_t>(ppid);
  };
  const pid_t guardian = parent_of(step_pid);
  const pid_t stand_in = parent_of(guardian);
  ASSERT_GT(stand_in, 1);
  ASSERT_EQ(::kill(stand_in, SIGKILL), 0);
  EXPECT_TRUE(gone_within(step_pid, std::chrono::seconds(10)));
  EXPECT_TRUE(gone_within(bg_pid, std::chrono::seconds(10)));
  EXPECT_TRUE(gone_within(guardian, std::chrono::seconds(10)));
  EXPECT_TRUE(w->wait().ok());
}

TEST_F(GuardedSpawnTest, TheStepAndWhatItStartedDieWhenTheGuardiansParentIsKilled) {
  expect_all_gone_after_the_parent_dies(
      dir_, "sleep 300 & echo $! > bg.pid; echo $$ > step.pid; sleep 300", 5000);
}

TEST_F(GuardedSpawnTest, AStepIgnoringSigtermGetsSigkillAfterTheKillWaitWhenItsWorkerDies) {
  expect_all_gone_after_the_parent_dies(
      dir_,
      "trap \"\" TERM; (trap \"\" TERM; exec sleep 300) & echo $! > bg.pid; echo $$ > step.pid; "
      "sleep 300",
      300);
}

// The step's walltime: the guardian ends the step and what it started, and says so. The
// bounds are generous (a 1 s limit, 20 s to be gone): they tell "ended" from "ran its 300 s".
TEST_F(GuardedSpawnTest, AStepPastItsTimeLimitIsEndedWithItsChildrenAndReportedTimedOut) {
  auto r = bash("sleep 300 & echo $! > bg.pid; echo $$ > step.pid; sleep 300");
  r.time_limit = std::chrono::seconds(1);
  auto p = GuardedProcess::start(r, {});
  ASSERT_TRUE(p.ok()) << p.error().message;
  const pid_t bg_pid = pid_in(dir_ / "bg.pid");
  ASSERT_GT(bg_pid, 0);
  auto start = std::chrono::steady_clock::now();
  auto s = p->wait();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_TRUE(p->timed_out());
  // The shell dies of the SIGTERM, or exits 143 when it saw its child's first.
  EXPECT_TRUE(WIFSIGNALED(*s) ? WTERMSIG(*s) == SIGTERM : WEXITSTATUS(*s) == 143) << *s;
  EXPECT_TRUE(gone_within(bg_pid, std::chrono::seconds(10)));
}

TEST_F(GuardedSpawnTest, AStepIgnoringSigtermPastItsTimeLimitGetsSigkillAfterTheKillWait) {
  auto r =
      bash("trap \"\" TERM; (trap \"\" TERM; exec sleep 300) & echo $! > bg.pid; sleep 300 & wait");
  r.time_limit = std::chrono::seconds(1);
  GuardOptions g;
  g.kill_wait = std::chrono::milliseconds(300);
  auto p = GuardedProcess::start(r, g);
  ASSERT_TRUE(p.ok()) << p.error().message;
  const pid_t bg_pid = pid_in(dir_ / "bg.pid");
  ASSERT_GT(bg_pid, 0);
  auto s = p->wait();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(p->timed_out());
  EXPECT_TRUE(WIFSIGNALED(*s));
  EXPECT_EQ(WTERMSIG(*s), SIGKILL);
  EXPECT_TRUE(gone_within(bg_pid, std::chrono::seconds(10)));
}

TEST_F(GuardedSpawnTest, AStepEndingWithinItsTimeLimitIsNotTimedOut) {
  auto r = bash("exit 3");
  r.time_limit = std::chrono::seconds(60);
  auto p = GuardedProcess::start(r, {});
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto s = p->wait();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_FALSE(p->timed_out());
  EXPECT_EQ(WEXITSTATUS(*s), 3);
}

TEST(StepOutput, TheMarkerNamesTheAttemptTheReasonAndTheTimeInUtc) {
  EXPECT_EQ(attempt_marker(2, "retry", 1795555800),
            "==== merlin: attempt 2 (retry), 2026-11-24T21:30:00Z ====\n");
}

}  // namespace
}  // namespace merlin
