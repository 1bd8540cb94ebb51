#include "workers/process_executor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <vector>

#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/shell_words.h"
#include "workers/guard_protocol.h"
#include "workers/guarded_spawn.h"
#include "workers/port_lease.h"
#include "workers/return_code_policy.h"
#include "workers/step_environment.h"
#include "workers/step_output.h"

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
  SpawnRequest request;
  // The environment: ours without the credential variables (unless the step asks), with the
  // task's variables replacing same-named ones.
  std::vector<std::string_view> ours;
  for (char** e = environ; *e; ++e) ours.emplace_back(*e);
  // A step that starts ranks gets a port of its own for them to meet on, held while it runs,
  // and this host's name for ranks elsewhere (workers/rank_environment.h).
  std::optional<PortLease> lease;
  const auto* env = &task.env;
  std::vector<std::pair<std::string, std::string>> with_port;  // only for such steps
  if (task.starts_ranks) {
    if (auto l = PortLease::take(port_lock_dir())) {
      lease.emplace(std::move(*l));
      with_port = task.env;
      with_port.emplace_back("MASTER_PORT", std::to_string(lease->port()));
      with_port.emplace_back("MERLIN_MASTER_ADDR", this_host());
      env = &with_port;
    } else {
      log::warn("no MASTER_PORT for step={} sample={}: {}", task.step, task.sample,
                l.error().message);
    }
  }
  request.env = step_environment(ours, *env, task.pass_broker);
  // `shell: /usr/bin/env python3` runs `/usr/bin/env python3 <script>`, as Merlin does.
  request.argv = shell_words(task.shell);
  std::string command_line;
  for (const auto& w : request.argv) command_line += w + " ";
  // A lean workspace's script: the shell reads /dev/fd/3 (workers/lean_executor.h).
  const std::string script = io.script_fd >= 0 ? "/dev/fd/3" : task.script_path;
  request.argv.push_back(script);
  request.fd3 = io.script_fd;
  // In the task's scratch dir when the step has one (created by the Stager), else its
  // workspace dir; the script, .out and .err stay in the workspace either way.
  request.cwd = task.run_dir();

  // Output: the caller's descriptors (a lean workspace's captures), or the task's .out/.err,
  // where a run again appends to what the earlier ones wrote, after a marker line.
  int out = io.out_fd, err = io.err_fd;
  std::vector<int> opened;
  auto close_opened = [&opened] {
    for (int fd : opened) ::close(fd);
  };
  const std::string marker = attempt_marker(
      task.attempt + 1, task.again.empty() ? "rerun" : task.again, std::time(nullptr));
  if (out < 0) {
    auto o = open_step_output(task.out_path, marker);
    if (!o) return o.error();
    out = *o;
    opened.push_back(out);
  }
  if (err < 0) {
    auto e = open_step_output(task.err_path, marker);
    if (!e) {
      close_opened();
      return e.error();
    }
    err = *e;
    opened.push_back(err);
  }
  request.stdio = {-1, out, err};  // stdin: /dev/null
  request.time_limit = std::chrono::seconds(task.walltime_seconds);

  auto start = std::chrono::steady_clock::now();
  auto child =
      GuardedProcess::start(request, GuardOptions{options_.guard_program, options_.kill_wait});
  if (!child) close_opened();
  if (!child)
    return Error::runtime("cannot start '" + command_line + script + "': " + child.error().message);
  const pid_t pgid = child->group();
  {
    std::lock_guard lock(mu_);
    running_.emplace(pgid, Running{{task.instance.v, task.sample}, child->guardian()});
    if (kill_at_) {  // started while the run ends (the worker checked just before): end it too
      terminated_.insert(pgid);
      ::kill(-pgid, killed_ ? SIGKILL : SIGTERM);
    }
  }
  auto status = child->wait();
  {
    std::lock_guard lock(mu_);
    running_.erase(pgid);
  }
  // Said where the step's own errors are (its .err, or a lean workspace's capture), once the
  // step and its group have ended, so the line comes last.
  if (child->timed_out()) {
    // On a line of its own, after whatever the step wrote last.
    // (.err is open write-only here: its last byte is read through a descriptor of its own.)
    struct stat st {};
    char last = '\n';
    if (::fstat(err, &st) == 0 && st.st_size > 0 && ::pread(err, &last, 1, st.st_size - 1) != 1 &&
        io.err_fd < 0) {
      int rd = ::open(task.err_path.c_str(), O_RDONLY | O_CLOEXEC);
      if (rd >= 0) {
        (void)::pread(rd, &last, 1, st.st_size - 1);
        ::close(rd);
      }
    }
    const std::string line =
        (last == '\n' ? "" : "\n") + walltime_message(task.walltime_seconds) + "\n";
    ssize_t n = ::write(err, line.data(), line.size());
    (void)n;  // a full disk: the decision does not depend on the line
  }
  close_opened();
  if (pid_t g = child->lost_guardian())
    log::warn(
        "the step guardian (pid {}) died under step={} sample={}: the step was killed with it "
        "and counts as killed by a signal",
        g, task.step, task.sample);
  if (!status)
    return Error::runtime("cannot start '" + command_line + script +
                          "': " + status.error().message);
  ExecResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.exit_code = WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
  r.signal = WIFSIGNALED(*status) ? WTERMSIG(*status) : 0;
  r.timed_out = child->timed_out();
  return r;
}

void ProcessExecutor::terminate_running() {
  std::lock_guard lock(mu_);
  if (kill_at_) return;
  kill_at_ = std::chrono::steady_clock::now() + options_.kill_wait;
  for (const auto& [pgid, which] : running_) {
    terminated_.insert(pgid);
    ::kill(-pgid, SIGTERM);
  }
  escalator_ = std::thread([this] { kill_after_wait(); });
}

bool ProcessExecutor::end_run(InstanceId instance, std::uint64_t sample) {
  std::lock_guard lock(mu_);
  bool found = false;
  for (const auto& [pgid, which] : running_) {
    if (which.task != std::pair{instance.v, sample}) continue;
    // Its guardian ends the step (and ignores the signal if the step ended meanwhile).
    found |= ::kill(which.guardian, guard::kEndStepSignalNumber) == 0;
  }
  return found;
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
