// ProcessExecutor: the real shell under the worker. What a step inherits from us, and how a
// step that is asked to end is ended.
#include "workers/process_executor.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <future>
#include <sstream>
#include <thread>
#include <vector>

#include "merlin/core/util/files.h"
#include "merlin/core/util/shell_words.h"

namespace merlin {
namespace {
namespace fs = std::filesystem;

class ProcessExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("process_executor_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  RenderedTask task(const std::string& name, const std::string& cmd) const {
    RenderedTask t;
    t.dir = (dir_ / name).string();
    t.script_path = t.dir + "/" + name + ".sh";
    t.out_path = t.dir + "/" + name + ".out";
    t.err_path = t.dir + "/" + name + ".err";
    t.shell = "/bin/bash";
    t.script_text = "#!/bin/bash\n\n" + cmd + "\n";
    return t;
  }

  static std::string out_of(const RenderedTask& t) {
    auto text = files::read(t.out_path);
    return text ? *text : "(unreadable: " + text.error().message + ")";
  }

  fs::path dir_;
};

// The step's descriptors as "0 1 2 ...", leaving out the one `ls` opens to read them.
constexpr const char* kListFds =
    "ls -l --time-style=+T /proc/self/fd | "
    "awk '$8 == \"->\" && $9 !~ /^\\/proc\\/[0-9]+\\/fd$/ {print $7}' | sort -n | paste -sd' '";

TEST_F(ProcessExecutorTest, AStagingStepRunsInItsScratchDirWithItsFilesInTheWorkspace) {
  ProcessExecutor ex;
  auto t = task("sim", "pwd; echo out > result.json");
  t.scratch_dir = (dir_ / "scratch" / "sim").string();
  fs::create_directories(t.scratch_dir);
  auto r = ex.run(t);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(out_of(t), t.scratch_dir + "\n");
  EXPECT_TRUE(fs::exists(t.scratch_dir + "/result.json"));
  EXPECT_FALSE(fs::exists(t.dir + "/result.json"));
  EXPECT_TRUE(fs::exists(t.script_path)) << "the script stays in the workspace";
}

TEST_F(ProcessExecutorTest, AShellWithArgumentsRunsItsWordsBeforeTheScript) {
  // Merlin's hello.yaml: `shell: /usr/bin/env python3` (it was started as one program name,
  // "/usr/bin/env python3", which does not exist).
  ProcessExecutor ex;
  auto t = task("py", "");
  t.shell = "/usr/bin/env  python3";
  t.script_text = "#!/usr/bin/env python3\n\nprint(\"Hurrah, we did it!\")\n";
  auto r = ex.run(t);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(out_of(t), "Hurrah, we did it!\n");
}

TEST(ShellWords, SplitOnBlanksWithBashWhenEmpty) {
  EXPECT_EQ(shell_words("/usr/bin/env python3"),
            (std::vector<std::string>{"/usr/bin/env", "python3"}));
  EXPECT_EQ(shell_words(" /bin/bash\t-e "), (std::vector<std::string>{"/bin/bash", "-e"}));
  EXPECT_EQ(shell_words(""), std::vector<std::string>{"/bin/bash"});
}

TEST_F(ProcessExecutorTest, StepSeesOnlyStdinStdoutAndStderr) {
  // A descriptor of ours without close-on-exec (as hiredis' sockets were, or one our parent
  // left open): the step must not get it.
  int leaked = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(leaked, 3);
  ProcessExecutor ex;
  auto t = task("fds", kListFds);
  auto r = ex.run(t);
  ::close(leaked);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(out_of(t), "0 1 2\n");
}

TEST_F(ProcessExecutorTest, TheFirstRunWritesItsOutputWithoutAMarker) {
  ProcessExecutor ex;
  auto t = task("first", "echo out; echo err >&2");
  auto r = ex.run(t);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(out_of(t), "out\n");
  EXPECT_EQ(*files::read(t.err_path), "err\n");
}

TEST_F(ProcessExecutorTest, ARunAgainAppendsToOutAndErrAfterAMarker) {
  ProcessExecutor ex;
  auto t = task("again", "echo \"out $N\"; echo \"err $N\" >&2");
  t.env = {{"N", "1"}};
  ASSERT_TRUE(ex.run(t).ok());
  t.env = {{"N", "2"}};
  t.attempt = 1;
  t.again = "retry";
  ASSERT_TRUE(ex.run(t).ok());
  t.env = {{"N", "3"}};
  t.attempt = 0;  // `merlin restart` of a failed sample: a first delivery, files there
  t.again = "";
  ASSERT_TRUE(ex.run(t).ok());
  const std::string marker = "==== merlin: attempt 2 (retry), ";
  std::istringstream out(out_of(t));
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(out, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << out_of(t);
  EXPECT_EQ(lines[0], "out 1");
  EXPECT_EQ(lines[1].rfind(marker, 0), 0u) << lines[1];
  EXPECT_EQ(lines[1].substr(lines[1].size() - 6), "Z ====");
  EXPECT_EQ(lines[2], "out 2");
  EXPECT_EQ(lines[3].rfind("==== merlin: attempt 1 (rerun), ", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4], "out 3");
  auto err = files::read(t.err_path);
  ASSERT_TRUE(err.ok());
  EXPECT_EQ(err->rfind("err 1\n" + marker, 0), 0u) << *err;
  EXPECT_NE(err->find("\nerr 2\n"), std::string::npos) << *err;
}

TEST_F(ProcessExecutorTest, ExitCodesAndSignalsAreTheStepsOwn) {
  ProcessExecutor ex;
  auto r = ex.run(task("exits", "exit 143"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 143);
  EXPECT_EQ(r->signal, 0);
  r = ex.run(task("killed", "kill -TERM $$"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 143);
  EXPECT_EQ(r->signal, SIGTERM);
}

TEST_F(ProcessExecutorTest, AShellThatIsNotThereCannotStartTheStep) {
  ProcessExecutor ex;
  auto t = task("noshell", "true");
  t.shell = "/no/such/shell";
  auto r = ex.run(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRuntime);
  EXPECT_NE(r.error().message.find("cannot start '/no/such/shell "), std::string::npos)
      << r.error().message;
}

// Runs `task` on another thread once `ex` is set up; the step touches `started` in its
// directory first, which `wait_started` waits for (bounded).
class Running {
 public:
  Running(ProcessExecutor& ex, RenderedTask t) : task_(std::move(t)) {
    result_ = std::async(std::launch::async, [&ex, this] { return ex.run(task_); });
  }
  bool wait_started() const {
    for (int i = 0; i < 1000; ++i) {  // up to 10 s
      if (fs::exists(task_.dir + "/started")) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  Result<ExecResult> result() { return result_.get(); }

 private:
  RenderedTask task_;
  std::future<Result<ExecResult>> result_;
};

using Seconds = std::chrono::duration<double>;

// The step's walltime (user-guide §6.4): ended by its guardian, reported, and said in .err on
// a line of its own. The bound (60 s for a 1 s limit) only tells "ended" from "ran 300 s".
TEST_F(ProcessExecutorTest, AStepPastItsWalltimeIsEndedAndItsErrSaysSo) {
  ProcessExecutor ex;
  auto t = task("slow", "printf 'no newline' >&2; sleep 300");
  t.walltime_seconds = 1;
  auto start = std::chrono::steady_clock::now();
  auto r = ex.run(t);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->exit_code, 143);
  const std::string err = *files::read(t.err_path);
  const std::string line = "merlin: step killed after its walltime 00:00:01\n";
  EXPECT_EQ(err.rfind("no newline\n", 0), 0u) << err;
  ASSERT_GE(err.size(), line.size()) << err;
  EXPECT_EQ(err.substr(err.size() - line.size()), line) << err;

  auto quick = task("quick", "echo fine");
  quick.walltime_seconds = 60;
  auto q = ex.run(quick);
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_FALSE(q->timed_out);
  EXPECT_EQ(*files::read(quick.err_path), "");
}

TEST_F(ProcessExecutorTest, AStepThatIgnoresSigtermIsKilledAfterTheWait) {
  ProcessExecutor ex(ProcessExecutorOptions{std::chrono::milliseconds(300), {}});
  Running step(ex, task("stubborn", "trap '' TERM\ntouch started\nsleep 30"));
  ASSERT_TRUE(step.wait_started());
  auto asked = std::chrono::steady_clock::now();
  ex.terminate_running();
  auto r = step.result();
  Seconds took = std::chrono::steady_clock::now() - asked;
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->signal, SIGKILL);
  EXPECT_EQ(r->exit_code, 128 + SIGKILL);
  EXPECT_GE(took.count(), 0.3) << "SIGTERM first, SIGKILL only after the wait";
  EXPECT_LT(took.count(), 10.0) << "not the step's 30 s";
}

TEST_F(ProcessExecutorTest, AStepThatExitsOnSigtermReportsItsOwnExit) {
  auto asked = std::chrono::steady_clock::now();
  {
    ProcessExecutor ex(ProcessExecutorOptions{std::chrono::seconds(60), {}});
    // `started` after the sleep is forked: a SIGTERM sent before the fork would miss the
    // sleep, which would then be left for the 60 s wait (seen once under load).
    Running step(ex, task("polite", "trap 'exit 0' TERM\nsleep 30 &\ntouch started\nwait"));
    ASSERT_TRUE(step.wait_started());
    asked = std::chrono::steady_clock::now();
    ex.terminate_running();
    auto r = step.result();
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->signal, 0);
    EXPECT_EQ(r->exit_code, 0);
  }  // nothing of the step is left (its sleep ended by SIGTERM): no waiting for the 60 s
  EXPECT_LT(Seconds(std::chrono::steady_clock::now() - asked).count(), 10.0);
}

TEST_F(ProcessExecutorTest, WhatAnEndedStepLeftBehindIsKilledAfterTheWait) {
  auto t =
      task("leaves",
           "(trap '' TERM; touch trapped; exec sleep 30) &\necho $! > child.pid\n"
           "while [ ! -e trapped ]; do sleep 0.01; done\ntouch started\nwait");
  pid_t child = 0;
  {
    ProcessExecutor ex(ProcessExecutorOptions{std::chrono::milliseconds(300), {}});
    Running step(ex, t);
    ASSERT_TRUE(step.wait_started());
    ex.terminate_running();
    auto r = step.result();
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->signal, SIGTERM) << "the script itself ends at SIGTERM";
    auto text = files::read(t.dir + "/child.pid");
    ASSERT_TRUE(text.ok());
    child = static_cast<pid_t>(std::stol(*text));
    // (started waits for the child's trap: a SIGTERM before it would end the child.)
    EXPECT_EQ(::kill(child, 0), 0) << "its child ignores SIGTERM and is still there";
  }  // the executor goes: it waits out the 0.3 s and sends SIGKILL to the group
  // SIGKILL is delivered asynchronously: give the child (bounded) time to go.
  std::string last;
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    auto state = files::read("/proc/" + std::to_string(child) + "/stat");
    gone = !state.ok() || state->find(") Z ") != std::string::npos;
    if (!gone) {
      last = *state;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  EXPECT_TRUE(gone) << "still there 5 s after SIGKILL: " << last;
}

TEST_F(ProcessExecutorTest, AStepStartedAfterTerminateIsEndedToo) {
  ProcessExecutor ex(ProcessExecutorOptions{std::chrono::milliseconds(200), {}});
  ex.terminate_running();  // nothing runs yet: the worker is about to start one
  auto start = std::chrono::steady_clock::now();
  auto r = ex.run(task("late", "trap '' TERM\nsleep 30"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  // SIGTERM at once (before or after the trap is set), SIGKILL when that is not enough.
  EXPECT_TRUE(r->signal == SIGTERM || r->signal == SIGKILL) << r->signal;
  EXPECT_LT(Seconds(std::chrono::steady_clock::now() - start).count(), 10.0);
}

}  // namespace
}  // namespace merlin
