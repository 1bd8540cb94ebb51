#include "workers/guarded_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include "merlin/core/util/process_info.h"
#include "workers/guard_protocol.h"

namespace merlin {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

// posix_spawnp's search in our PATH, done here: the guardian has no environment of its own and
// execs the step by path.
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

/// One thread's guardian: its pid and our end of its socket. Destroyed, it says goodbye (the
/// guardian exits) and reaps the guardian.
class GuardServer {
 public:
  static Result<std::shared_ptr<GuardServer>> start(const std::string& program,
                                                    std::chrono::milliseconds kill_wait);
  ~GuardServer() {
    if (owner_ == ::getpid()) {  // not a forked child's copy of its parent's guardian
      guard::SpawnHeader bye;
      bye.magic = guard::kGoodbyeMagic;
      ssize_t n = ::send(sock_, &bye, sizeof bye, MSG_NOSIGNAL);
      (void)n;  // a guardian already gone has nothing to be told
    }
    ::close(sock_);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  GuardServer(const GuardServer&) = delete;
  GuardServer& operator=(const GuardServer&) = delete;

  pid_t pid() const { return pid_; }
  int sock() const { return sock_; }
  /// Started by this process (a forked child has its parent's copy, which is not its own)
  /// with these options, and still answering.
  bool serves(const std::string& program, std::chrono::milliseconds kill_wait) const {
    return alive_ && owner_ == ::getpid() && program == program_ && kill_wait == kill_wait_;
  }
  /// It stopped answering (died, or the exchange went out of step): start another next time.
  void fail() { alive_ = false; }

  /// The next report, or false at its end of file.
  bool next(guard::GuardReport* r) {
    char* p = reinterpret_cast<char*>(r);
    std::size_t got = 0;
    while (got < sizeof *r) {
      ssize_t n = ::read(sock_, p + got, sizeof *r - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fail();
        return false;
      }
      got += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  GuardServer(pid_t pid, int sock, std::string program, std::chrono::milliseconds kill_wait)
      : pid_(pid), sock_(sock), program_(std::move(program)), kill_wait_(kill_wait) {}
  pid_t pid_;
  int sock_;
  pid_t owner_ = ::getpid();
  std::string program_;
  std::chrono::milliseconds kill_wait_;
  bool alive_ = true;
};

Result<std::shared_ptr<GuardServer>> GuardServer::start(const std::string& program,
                                                        std::chrono::milliseconds kill_wait) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Error::runtime("socketpair: " + errno_text(errno));
  std::vector<std::string> words = {program, std::to_string(::getpid()),
                                    std::to_string(kill_wait.count())};
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  // stderr stays ours: the guardian's own complaints (it has none in normal operation).
  posix_spawn_file_actions_adddup2(&fa, sv[1], guard::kSocketFd);
  // Nothing else of ours: not our Redis sockets, journal or lock files, other slots' sockets.
  posix_spawn_file_actions_addclosefrom_np(&fa, guard::kSocketFd + 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own: the worker's group (a terminal's ^C) does not reach it.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  // No environment: it reads none, and ours may hold what steps are not given (a broker URL
  // with its password, docs/security.md), which /proc/<its pid>/environ would show them.
  char* no_environment[] = {nullptr};
  int rc = ::posix_spawn(&pid, program.c_str(), &fa, &attr, argv.data(), no_environment);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(sv[1]);
  if (rc != 0) {
    ::close(sv[0]);
    return Error::runtime("step guardian " + program + ": " + errno_text(rc) +
                          " (install merlin-guard beside merlin, or set MERLIN_GUARD)");
  }
  return std::shared_ptr<GuardServer>(new GuardServer(pid, sv[0], program, kill_wait));
}

namespace {

// This thread's guardian (the one its steps' PR_SET_PDEATHSIG watches).
thread_local std::shared_ptr<GuardServer> this_threads_guard;

// A guardian for one step: this thread's, unless it is busy with another (an unwaited step
// of this thread) or was started with other options; then a new one.
Result<std::shared_ptr<GuardServer>> guard_for(const std::string& program,
                                               std::chrono::milliseconds kill_wait) {
  auto& cached = this_threads_guard;
  if (cached && cached.use_count() == 1 && cached->serves(program, kill_wait)) return cached;
  auto fresh = GuardServer::start(program, kill_wait);
  if (!fresh) return fresh.error();
  if (!cached || cached.use_count() == 1) cached = *fresh;
  return *fresh;
}

// The request's header (with the step's descriptors attached) and its strings.
bool send_request(int sock, const guard::SpawnHeader& h, const std::vector<int>& fds,
                  const std::string& text) {
  iovec iov[2] = {{const_cast<guard::SpawnHeader*>(&h), sizeof h},
                  {const_cast<char*>(text.data()), text.size()}};
  alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
  msghdr m{};
  m.msg_iov = iov;
  m.msg_iovlen = 2;
  if (!fds.empty()) {
    m.msg_control = control;
    m.msg_controllen = CMSG_SPACE(fds.size() * sizeof(int));
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds.data(), fds.size() * sizeof(int));
  }
  ssize_t n;
  while ((n = ::sendmsg(sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  if (n < 0) return false;
  // The rest of a long environment, without the descriptors (they went with the first byte).
  std::size_t sent = static_cast<std::size_t>(n);
  const std::size_t total = sizeof h + text.size();
  while (sent < total) {
    const char* p = sent < sizeof h ? reinterpret_cast<const char*>(&h) + sent
                                    : text.data() + (sent - sizeof h);
    const std::size_t left = sent < sizeof h ? sizeof h - sent : total - sent;
    ssize_t k = ::send(sock, p, left, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    sent += static_cast<std::size_t>(k);
  }
  return true;
}

}  // namespace

Result<GuardedProcess> GuardedProcess::start(const SpawnRequest& request,
                                             const GuardOptions& options) {
  if (request.argv.empty()) return Error::runtime("nothing to run (empty argv)");
  for (int fd : request.stdio)
    if (fd >= 0 && fd < 3) return Error::runtime("a step's stdio must come from fd 3 or above");
  auto exe = resolve(request.argv[0]);
  if (!exe) return exe.error();
  const std::string& program = options.program.empty() ? guard_program() : options.program;

  guard::SpawnHeader h;
  std::vector<int> fds;
  for (int i = 0; i < 3; ++i)
    if (request.stdio[i] >= 0) {
      h.fd_mask |= 1u << i;
      fds.push_back(request.stdio[i]);
    }
  if (request.fd3 >= 0) {
    h.fd_mask |= 1u << 3;
    fds.push_back(request.fd3);
  }
  std::string text;
  auto add = [&text](const std::string& s) {
    text += s;
    text += '\0';
  };
  add(*exe);
  add(request.cwd);
  for (const auto& a : request.argv) add(a);
  for (const auto& e : request.env) add(e);
  if (text.size() > guard::kMaxRequestBytes)
    return Error::runtime("the step's arguments and environment take " +
                          std::to_string(text.size()) + " bytes, more than the " +
                          std::to_string(guard::kMaxRequestBytes) + " a step may have");
  h.time_limit_ms = std::max<long long>(request.time_limit.count(), 0);
  h.argc = static_cast<std::uint32_t>(request.argv.size());
  h.envc = static_cast<std::uint32_t>(request.env.size());
  h.bytes = static_cast<std::uint32_t>(text.size());

  // A guardian that died since its last step (killed by hand) shows only now: start another
  // and ask again, once.
  for (int attempt = 0;; ++attempt) {
    auto server = guard_for(program, options.kill_wait);
    if (!server) return server.error();
    auto& g = **server;
    guard::GuardReport r{};
    int exec_error = 0, setup_error = 0;
    bool answered = send_request(g.sock(), h, fds, text);
    while (answered && g.next(&r)) {
      if (r.kind == guard::ReportKind::kStarted)
        return GuardedProcess(r.value, *server, exec_error, setup_error, request.cwd);
      if (r.kind == guard::ReportKind::kExecFailed) exec_error = r.value;
      if (r.kind == guard::ReportKind::kSetupFailed) setup_error = r.value;
      if (r.kind == guard::ReportKind::kGuardFailed) {
        if (r.value == EINVAL) g.fail();
        return Error::runtime("step guardian: " +
                              (r.value == EINVAL ? std::string("refused the request")
                                                 : "fork: " + errno_text(r.value)));
      }
    }
    g.fail();
    if (attempt > 0)
      return Error::runtime("step guardian " + program + " (pid " + std::to_string(g.pid()) +
                            ") ended without starting the step");
  }
}

GuardedProcess::GuardedProcess(pid_t pid, std::shared_ptr<GuardServer> server, int exec_error,
                               int setup_error, std::string cwd)
    : pid_(pid),
      server_(std::move(server)),
      exec_error_(exec_error),
      setup_error_(setup_error),
      cwd_(std::move(cwd)) {}

GuardedProcess::GuardedProcess(GuardedProcess&& other) noexcept
    : pid_(other.pid_),
      server_(std::move(other.server_)),
      exec_error_(other.exec_error_),
      setup_error_(other.setup_error_),
      cwd_(std::move(other.cwd_)),
      waited_(other.waited_),
      timed_out_(other.timed_out_),
      lost_guardian_(other.lost_guardian_) {
  other.pid_ = -1;
  other.waited_ = true;
}

GuardedProcess::~GuardedProcess() {
  if (!waited_ && pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    (void)wait();  // the guardian's report of it, so that its next exchange starts clean
  }
}

pid_t GuardedProcess::guardian() const { return server_ ? server_->pid() : -1; }

Result<int> GuardedProcess::wait() {
  if (waited_ || !server_) return Error::runtime("step already waited for");
  waited_ = true;
  guard::GuardReport r{};
  bool have_status = false;
  int step_status = 0;
  while (!have_status && server_->next(&r)) {
    switch (r.kind) {
      case guard::ReportKind::kStepStatus:
        have_status = true;
        step_status = r.value;
        break;
      case guard::ReportKind::kExecFailed:
        exec_error_ = r.value;
        break;
      case guard::ReportKind::kSetupFailed:
        setup_error_ = r.value;
        break;
      case guard::ReportKind::kTimedOut:
        timed_out_ = true;
        break;
      case guard::ReportKind::kStarted:
      case guard::ReportKind::kGuardFailed:
        break;
    }
  }
  const pid_t guardian_pid = server_->pid();
  server_.reset();  // back to this thread's cache (or reaped, when it was an extra one)
  if (exec_error_ != 0) return Error::runtime(errno_text(exec_error_));
  if (setup_error_ != 0) return Error::runtime(errno_text(setup_error_) + " (in " + cwd_ + ")");
  if (have_status) return step_status;
  // The guardian died under its step (killed by hand, or by a batch system ending the job one
  // process at a time, the guardian a moment before the worker): the step must not outlive it
  // unseen, so it is killed, and that is what it reports. Not the step's own verdict: the
  // worker counts it as a step killed by a signal (it runs again within its retries).
  ::kill(-pid_, SIGKILL);
  lost_guardian_ = guardian_pid;
  return SIGKILL;  // as waitpid(2) gives it: WIFSIGNALED, WTERMSIG == SIGKILL
}

}  // namespace merlin
