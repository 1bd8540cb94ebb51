// ProcessExecutor: the real shell under the worker. What a step inherits from us, and how a
// step that is asked to end is ended.
#include "workers/process_executor.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "merlin/workspace/files.h"

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

}  // namespace
}  // namespace merlin
