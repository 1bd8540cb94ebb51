#include "workers/process_executor.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "merlin/util/files.h"
#include "merlin/util/shell_words.h"

extern char** environ;

namespace merlin {
namespace {

// Whether a process of group `pgid` still runs. kill(-pgid, 0) also counts zombies, which an
// init that does not reap orphans leaves behind, so the candidates' states are read.
bool group_alive(pid_t pgid) {
  if (::kill(-pgid, 0) != 0) return false;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto stat = files::read("/proc/" + name + "/stat");
    if (!stat) continue;
    // "pid (comm) S ppid pgrp ...": comm may hold anything, so read after its last ')'.
    auto close = stat->rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (std::sscanf(stat->c_str() + close + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') return true;
  }
  return false;
}

}  // namespace

ProcessExecutor::ProcessExecutor(ProcessExecutorOptions options) : options_(options) {}

ProcessExecutor::~ProcessExecutor() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  if (escalator_.joinable()) escalator_.join();
}

Result<void> ProcessExecutor::prepare(const RenderedTask& task) {
  auto d = files::make_dirs(task.dir);
  if (!d) return d;
  return files::write(task.script_path, task.script_text, 0755);
}

Result<void> ProcessExecutor::mark_finished(const RenderedTask& task) {
  return files::write(task.dir + "/MERLIN_FINISHED", "");
}

Result<ExecResult> ProcessExecutor::run(const RenderedTask& task) {
  auto p = prepare(task);
  if (!p) return p.error();
  return spawn(task, {});
}

Result<ExecResult> ProcessExecutor::run_streams(const RenderedTask& task,
                                                const StepStreams& streams) {
  return spawn(task, streams);
}

Result<ExecResult> ProcessExecutor::spawn(const RenderedTask& task, const StepStreams& io) {

  // The environment: ours, with the task's variables replacing same-named ones.
  std::vector<std::string> owned;
  for (char** e = environ; *e; ++e) {
    std::string_view kv(*e);
    auto eq = kv.find('=');
    std::string_view key = kv.substr(0, eq);
    bool replaced = false;
    for (const auto& [k, v] : task.env) replaced |= key == k;
    if (!replaced) owned.emplace_back(kv);
  }
  for (const auto& [k, v] : task.env) owned.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : owned) envp.push_back(s.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (io.out_fd >= 0)
    posix_spawn_file_actions_adddup2(&fa, io.out_fd, 1);
  else
    posix_spawn_file_actions_addopen(&fa, 1, task.out_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (io.err_fd >= 0)
    posix_spawn_file_actions_adddup2(&fa, io.err_fd, 2);
  else
    posix_spawn_file_actions_addopen(&fa, 2, task.err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // A lean workspace's script: the shell reads /dev/fd/3 (workers/lean_executor.h).
  if (io.script_fd >= 0) posix_spawn_file_actions_adddup2(&fa, io.script_fd, 3);
  // Nothing but stdin/out/err reaches the step: not our Redis sockets (a step could write
  // commands to them with our login), journal or lock files, nor what our parent left open.
  posix_spawn_file_actions_addclosefrom_np(&fa, io.script_fd >= 0 ? 4 : 3);
  // In the task's scratch dir when the step has one (created by the Stager), else its
  // workspace dir; the script, .out and .err stay in the workspace either way.
  posix_spawn_file_actions_addchdir_np(&fa, task.run_dir().c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A process group of its own, so a drain can signal the whole step.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  // `shell: /usr/bin/env python3` runs `/usr/bin/env python3 <script>`, as Merlin does.
  std::vector<std::string> words = shell_words(task.shell);
  std::string command_line;
  std::vector<char*> argv;
  for (auto& w : words) {
    argv.push_back(w.data());
    command_line += w + " ";
  }
  const std::string script = io.script_fd >= 0 ? "/dev/fd/3" : task.script_path;
  argv.push_back(const_cast<char*>(script.c_str()));
  argv.push_back(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, words[0].c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return Error::runtime("cannot start '" + command_line + script +
                          "': " + std::strerror(rc));
  {
    std::lock_guard lock(mu_);
    running_.insert(pid);
    if (kill_at_) {  // started while the run ends (the worker checked just before): end it too
      terminated_.insert(pid);
      ::kill(-pid, killed_ ? SIGKILL : SIGTERM);
    }
  }
  int status = 0;
  int waited;
  while ((waited = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard lock(mu_);
    running_.erase(pid);
  }
  if (waited < 0) {
    return Error::runtime(std::string("waitpid: ") + std::strerror(errno));
  }
  ExecResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return r;
}

void ProcessExecutor::terminate_running() {
  std::lock_guard lock(mu_);
  if (kill_at_) return;
  kill_at_ = std::chrono::steady_clock::now() + options_.kill_wait;
  for (pid_t pgid : running_) {
    terminated_.insert(pgid);
    ::kill(-pgid, SIGTERM);
  }
  escalator_ = std::thread([this] { kill_after_wait(); });
}

void ProcessExecutor::kill_after_wait() {
  std::unique_lock lock(mu_);
  // Whatever is left of a terminated group once its script has ended (a child that ignores
  // SIGTERM).
  auto any_left = [this] {
    for (pid_t pgid : terminated_)
      if (group_alive(pgid)) return true;
    return false;
  };
  // Until kill_at_; the destructor cuts it short when nothing of the steps is left.
  cv_.wait_until(lock, *kill_at_, [&] { return closing_ && !any_left(); });
  killed_ = true;
  for (pid_t pgid : terminated_) ::kill(-pgid, SIGKILL);  // ESRCH for the groups that ended
}

}  // namespace merlin
