#include "workers/guarded_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "merlin/core/util/process_info.h"
#include "workers/guard_protocol.h"

namespace merlin {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

// posix_spawnp's search, done here because the guardian runs with the step's environment
// (whose PATH may differ from ours) and execs by path.
Result<std::string> resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/bin:/usr/bin";
  int last_error = ENOENT;
  for (;;) {
    auto colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      last_error = EACCES;
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return Error::runtime(errno_text(last_error));
}

std::string find_guard_program() {
  if (const char* env = std::getenv("MERLIN_GUARD"); env && *env) return env;
  return beside_self("merlin-guard");
}

}  // namespace

const std::string& guard_program() {
  static const std::string program = find_guard_program();
  return program;
}

Result<GuardedProcess> GuardedProcess::start(const SpawnRequest& request,
                                             const GuardOptions& options) {
  if (request.argv.empty()) return Error::runtime("nothing to run (empty argv)");
  for (int fd : request.stdio)
    if (fd >= 0 && fd < 3) return Error::runtime("a step's stdio must come from fd 3 or above");
  auto exe = resolve(request.argv[0]);
  if (!exe) return exe.error();
  const std::string& program = options.program.empty() ? guard_program() : options.program;

  // The report pipe: close-on-exec here (other slots spawn at the same time), its write end
  // moved above 9 so that the file actions below never overwrite it before placing it at 3.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error::runtime("pipe: " + errno_text(errno));
  int report_w = ::fcntl(fds[1], F_DUPFD_CLOEXEC, 10);
  ::close(fds[1]);
  if (report_w < 0) {
    ::close(fds[0]);
    return Error::runtime("fcntl: " + errno_text(errno));
  }

  // The step's fd 3, moved above 9 too, so that placing the report pipe at 3 never
  // overwrites it first.
  int passed = -1;
  if (request.fd3 >= 0) {
    passed = ::fcntl(request.fd3, F_DUPFD_CLOEXEC, 10);
    if (passed < 0) {
      int e = errno;
      ::close(fds[0]);
      ::close(report_w);
      return Error::runtime("fcntl: " + errno_text(e));
    }
  }

  std::vector<std::string> words = {
      program, std::to_string(::getpid()), std::to_string(options.kill_wait.count()),
      std::to_string(std::max<long long>(request.time_limit.count(), 0)), *exe};
  words.insert(words.end(), request.argv.begin(), request.argv.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : request.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  for (int i = 0; i < 3; ++i) {
    if (request.stdio[i] < 0)
      posix_spawn_file_actions_addopen(&fa, i, "/dev/null", i == 0 ? O_RDONLY : O_WRONLY, 0);
    else
      posix_spawn_file_actions_adddup2(&fa, request.stdio[i], i);
  }
  posix_spawn_file_actions_adddup2(&fa, report_w, guard::kReportFd);
  if (passed >= 0) posix_spawn_file_actions_adddup2(&fa, passed, guard::kPassedFd);
  // Nothing else reaches the step: not our Redis sockets (a step could write commands to
  // them with our login), journal or lock files, nor what our parent left open.
  posix_spawn_file_actions_addclosefrom_np(
      &fa, (passed >= 0 ? guard::kPassedFd : guard::kReportFd) + 1);
  posix_spawn_file_actions_addchdir_np(&fa, request.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A process group of its own (the guardian's, which the step joins), so that a drain can
  // signal the whole step.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, program.c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(report_w);
  if (passed >= 0) ::close(passed);
  if (rc != 0) {
    ::close(fds[0]);
    // The file actions fail with the same codes; say which one is likely.
    struct stat st {};
    if (::stat(program.c_str(), &st) != 0)
      return Error::runtime("step guardian " + program + ": " + errno_text(rc) +
                            " (install merlin-guard beside merlin, or set MERLIN_GUARD)");
    return Error::runtime(errno_text(rc) + " (in " + request.cwd + ")");
  }
  return GuardedProcess(pid, fds[0]);
}

GuardedProcess::GuardedProcess(GuardedProcess&& other) noexcept
    : pid_(other.pid_), report_fd_(other.report_fd_), waited_(other.waited_) {
  other.pid_ = -1;
  other.report_fd_ = -1;
  other.waited_ = true;
}

GuardedProcess::~GuardedProcess() {
  if (!waited_ && pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (report_fd_ >= 0) ::close(report_fd_);
}

Result<int> GuardedProcess::wait() {
  if (waited_) return Error::runtime("step already waited for");
  int status = 0;
  int waited;
  while ((waited = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  waited_ = true;
  if (waited < 0) return Error::runtime(std::string("waitpid: ") + errno_text(errno));
  // The guardian has exited, so everything it wrote is in the pipe (a few records, far below
  // PIPE_BUF); the step never held the write end (close-on-exec in the guardian).
  guard::GuardReport r{};
  bool exec_failed = false, guard_failed = false, have_status = false;
  int step_status = 0, error = 0;
  for (;;) {
    ssize_t n = ::read(report_fd_, &r, sizeof r);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof r)) break;
    switch (r.kind) {
      case guard::ReportKind::kStepStatus:
        have_status = true;
        step_status = r.value;
        break;
      case guard::ReportKind::kExecFailed:
        exec_failed = true;
        error = r.value;
        break;
      case guard::ReportKind::kGuardFailed:
        guard_failed = true;
        error = r.value;
        break;
      case guard::ReportKind::kTimedOut:
        timed_out_ = true;
        break;
    }
  }
  ::close(report_fd_);
  report_fd_ = -1;
  if (exec_failed) return Error::runtime(errno_text(error));
  if (guard_failed) return Error::runtime("step guardian: fork: " + errno_text(error));
  if (have_status) return step_status;
  if (WIFSIGNALED(status)) return status;  // killed with its group: the step was too
  return Error::runtime("step guardian ended with status " + std::to_string(WEXITSTATUS(status)) +
                        " without starting the step");
}

}  // namespace merlin
