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

TEST_F(GuardedSpawnTest, TheStepRunsInAProcessGroupOfItsOwnInItsCwdWithItsFds) {
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

pid_t parent_of(pid_t pid) {
  auto stat = files::read("/proc/" + std::to_string(pid) + "/stat");
  long ppid = 0;
  if (stat.ok()) std::sscanf(stat->c_str() + stat->rfind(')') + 1, " %*c %ld", &ppid);
  return static_cast<pid_t>(ppid);
}

// Whatever fails in a test, its forked stand-in worker does not outlive it.
struct StandInReaper {
  pid_t pid;
  ~StandInReaper() {
    if (::kill(pid, SIGKILL) == 0) ::waitpid(pid, nullptr, 0);
  }
};

// Forks a stand-in worker that starts `step_text` through its own guardian and waits for it;
// the step writes its pid to step.pid and its background child's to bg.pid. Kills the
// stand-in with SIGKILL once they run, and says whether the step, its child and the guardian
// are all gone within 10 s.
// With `earlier_text`, the stand-in first runs that step to its end (it leaves orphan.pid).
void expect_all_gone_after_the_parent_dies(const fs::path& dir, const std::string& step_text,
                                           int kill_wait_ms, const std::string& earlier_text = "") {
  SpawnRequest step;
  step.argv = {"bash", "-c", step_text};
  for (char** e = environ; *e; ++e) step.env.emplace_back(*e);
  step.cwd = dir.string();
  GuardOptions g;
  g.kill_wait = std::chrono::milliseconds(kill_wait_ms);
  const pid_t stand_in = ::fork();
  ASSERT_GE(stand_in, 0);
  if (stand_in == 0) {
    if (!earlier_text.empty()) {
      SpawnRequest earlier = step;
      earlier.argv[2] = earlier_text;
      auto e = GuardedProcess::start(earlier, g);
      if (!e || !e->wait()) ::_exit(1);
    }
    auto p = GuardedProcess::start(step, g);
    if (p) (void)p->wait();
    ::_exit(p ? 0 : 1);
  }
  StandInReaper reaper{stand_in};
  const pid_t step_pid = pid_in(dir / "step.pid");
  const pid_t bg_pid = pid_in(dir / "bg.pid");
  ASSERT_GT(step_pid, 0);
  ASSERT_GT(bg_pid, 0);
  ASSERT_TRUE(alive(step_pid));
  // The guardian is the step's parent, the stand-in the guardian's.
  const pid_t guardian = parent_of(step_pid);
  ASSERT_EQ(parent_of(guardian), stand_in);
  ASSERT_EQ(::kill(stand_in, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(stand_in, &status, 0), stand_in);
  EXPECT_TRUE(gone_within(step_pid, std::chrono::seconds(10)));
  EXPECT_TRUE(gone_within(bg_pid, std::chrono::seconds(10)));
  EXPECT_TRUE(gone_within(guardian, std::chrono::seconds(10)));
  if (!earlier_text.empty()) {
    const pid_t orphan = pid_in(dir / "orphan.pid");
    ASSERT_GT(orphan, 0);
    EXPECT_TRUE(gone_within(orphan, std::chrono::seconds(10)));
  }
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

// What an earlier step left running in a session of its own is the guardian's orphan: it
// ends with the worker too.
TEST_F(GuardedSpawnTest, WhatAnEarlierStepLeftInTheBackgroundDiesWithTheWorker) {
  expect_all_gone_after_the_parent_dies(
      dir_, "sleep 300 & echo $! > bg.pid; echo $$ > step.pid; sleep 300", 5000,
      "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > orphan.pid");
}

// Killed between steps (no step running): the guardian still ends what earlier steps left.
TEST_F(GuardedSpawnTest, AWorkerKilledBetweenStepsTakesWhatTheyLeftWithIt) {
  SpawnRequest earlier = bash("setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > orphan.pid");
  const pid_t stand_in = ::fork();
  ASSERT_GE(stand_in, 0);
  if (stand_in == 0) {
    auto e = GuardedProcess::start(earlier, {});
    if (!e) ::_exit(1);
    const pid_t guardian = e->guardian();  // (wait() lets go of it)
    if (!e->wait()) ::_exit(1);
    std::ofstream(dir_ / "between") << guardian << "\n";
    ::pause();
    ::_exit(0);
  }
  StandInReaper reaper{stand_in};
  const pid_t guardian = pid_in(dir_ / "between");
  const pid_t orphan = pid_in(dir_ / "orphan.pid");
  ASSERT_GT(guardian, 0);
  ASSERT_GT(orphan, 0);
  EXPECT_EQ(parent_of(orphan), guardian);  // the step has ended: its child is the guardian's
  ASSERT_EQ(::kill(stand_in, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(stand_in, &status, 0), stand_in);
  EXPECT_TRUE(gone_within(orphan, std::chrono::seconds(10)));
  EXPECT_TRUE(gone_within(guardian, std::chrono::seconds(10)));
  if (!gone_within(orphan, std::chrono::seconds(0))) ::kill(orphan, SIGKILL);
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

// The point of the guardian's design: one per thread, not one per step.
TEST_F(GuardedSpawnTest, OneGuardianStartsAThreadsStepsOneAfterAnother) {
  // The first step waits for the test to have read its parent (an ended step has none).
  auto first =
      GuardedProcess::start(bash("while [ ! -e go ]; do sleep 0.01; done; exit 4"), {});
  ASSERT_TRUE(first.ok()) << first.error().message;
  const pid_t guardian = first->guardian();
  EXPECT_EQ(parent_of(first->group()), guardian);
  std::ofstream(dir_ / "go").put('\n');
  EXPECT_EQ(*first->wait(), 4 << 8);
  for (int i = 0; i < 5; ++i) {
    auto next = GuardedProcess::start(bash("exit " + std::to_string(i)), {});
    ASSERT_TRUE(next.ok()) << next.error().message;
    EXPECT_EQ(next->guardian(), guardian);
    auto s = next->wait();
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(WEXITSTATUS(*s), i);
  }
  // Another thread has its own (the one its steps' PR_SET_PDEATHSIG watches).
  pid_t other = 0;
  std::thread([&] {
    auto p = GuardedProcess::start(bash("true"), {});
    if (p) other = p->guardian();
    if (p) (void)p->wait();
  }).join();
  EXPECT_GT(other, 0);
  EXPECT_NE(other, guardian);
  // The thread's end closed its socket: that guardian exited and was reaped.
  EXPECT_FALSE(alive(other));
}

TEST_F(GuardedSpawnTest, AGuardianKilledBetweenStepsIsReplacedAtTheNextStep) {
  auto first = GuardedProcess::start(bash("true"), {});
  ASSERT_TRUE(first.ok()) << first.error().message;
  const pid_t guardian = first->guardian();
  ASSERT_TRUE(first->wait().ok());
  ASSERT_EQ(::kill(guardian, SIGKILL), 0);
  auto next = GuardedProcess::start(bash("exit 7"), {});
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_NE(next->guardian(), guardian);
  auto s = next->wait();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(WEXITSTATUS(*s), 7);
}

// Not an error of the step (a batch system killing the job's processes one by one may reach
// the guardian a moment before the worker): the step is killed and reports so.
TEST_F(GuardedSpawnTest, AGuardianKilledUnderItsStepEndsTheStepAsKilledBySigkill) {
  auto p = GuardedProcess::start(bash("echo $$ > step.pid; sleep 300"), {});
  ASSERT_TRUE(p.ok()) << p.error().message;
  const pid_t step_pid = pid_in(dir_ / "step.pid");
  ASSERT_GT(step_pid, 0);
  const pid_t guardian = p->guardian();
  ASSERT_EQ(::kill(guardian, SIGKILL), 0);
  auto s = p->wait();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(WIFSIGNALED(*s));
  EXPECT_EQ(WTERMSIG(*s), SIGKILL);
  EXPECT_EQ(p->lost_guardian(), guardian);
  EXPECT_TRUE(gone_within(step_pid, std::chrono::seconds(10)));
}

// SIGUSR2 from the worker (a pruned trial): the step's group ends as for a walltime, without
// the walltime's report; the guardian then serves the next step.
TEST_F(GuardedSpawnTest, TheEndStepSignalFromTheWorkerEndsTheStepNotTheGuardian) {
  auto p = GuardedProcess::start(bash("sleep 300 & echo $! > bg.pid; echo $$ > step.pid; wait"),
                                 {});
  ASSERT_TRUE(p.ok()) << p.error().message;
  const pid_t bg_pid = pid_in(dir_ / "bg.pid");
  ASSERT_GT(pid_in(dir_ / "step.pid"), 0);
  ASSERT_GT(bg_pid, 0);
  const pid_t guardian = p->guardian();
  ASSERT_EQ(::kill(guardian, SIGUSR2), 0);
  auto s = p->wait();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_FALSE(p->timed_out());
  EXPECT_TRUE(WIFSIGNALED(*s) ? WTERMSIG(*s) == SIGTERM : WEXITSTATUS(*s) == 143) << *s;
  EXPECT_TRUE(gone_within(bg_pid, std::chrono::seconds(10)));
  auto next = GuardedProcess::start(bash("exit 2"), {});
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(next->guardian(), guardian);
  EXPECT_EQ(WEXITSTATUS(*next->wait()), 2);
}

TEST_F(GuardedSpawnTest, AMissingWorkingDirectoryIsAnErrorNamingIt) {
  auto r = bash("true");
  r.cwd = (dir_ / "gone").string();
  auto p = GuardedProcess::start(r, {});
  ASSERT_TRUE(p.ok()) << p.error().message;  // the guardian forks; the chdir fails in the step
  auto s = p->wait();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("No such file or directory (in " + r.cwd + ")"),
            std::string::npos)
      << s.error().message;
}

TEST(StepOutput, TheMarkerNamesTheAttemptTheReasonAndTheTimeInUtc) {
  EXPECT_EQ(attempt_marker(2, "retry", 1795555800),
            "==== merlin: attempt 2 (retry), 2026-11-24T21:30:00Z ====\n");
}

}  // namespace
}  // namespace merlin
