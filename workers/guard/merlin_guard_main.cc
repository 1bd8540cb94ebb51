// merlin-guard: sits between a worker thread and the steps it runs, so that they die with it.
//
// The worker thread posix_spawns this program once (a fresh single-threaded process, so it may
// use anything, unlike code between fork and exec in the multithreaded worker) and then asks
// it, over the socket at fd 3, to start its steps one after another (guard_protocol.h). It asks
// the kernel for SIGHUP when that thread exits (PR_SET_PDEATHSIG) and is the subreaper of what
// it starts, so orphans come to it. For each request it forks the step into a process group of
// its own, reports its pid, and waits:
//  - the step ends: its wait status goes back and the next request is read;
//  - the step's time limit (its `walltime`) passes: kTimedOut, then SIGTERM to the step's
//    group, SIGKILL once the kill wait has passed, the status once the step is reaped and its
//    group is empty (or killed);
//  - our parent sends SIGUSR2 (a pruned trial): the same, without kTimedOut;
//  - our parent process dies (kill -9 of merlin): SIGTERM to every child and group we hold (the
//    step's, and the orphans of earlier steps), SIGKILL after the kill wait, then we exit;
//  - the thread says goodbye (it is done): we exit, leaving alone what earlier steps left
//    running in the background (as a step started without us would).
// A step's own signals (the worker's terminate_running to its group, a step's `kill 0`) never
// reach us: we are in a group of our own. The step starts with the signal mask and dispositions
// we were started with, and with nothing open of ours.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <initializer_list>

#include "workers/guard_protocol.h"

static_assert(merlin::guard::kEndStepSignalNumber == SIGUSR2);
static_assert(merlin::guard::kParentDeathSignalNumber == SIGHUP);

namespace {

using merlin::guard::GuardReport;
using merlin::guard::ReportKind;
using merlin::guard::SpawnHeader;

int sock = -1;             // the worker thread's socket, moved above the step's fds
int signals = -1;          // signalfd of the signals we take
pid_t parent = 0;          // the worker process
long kill_wait_ms = 0;
sigset_t original_mask;    // what the step starts with
struct sigaction original_chld {};

void report(ReportKind kind, int value) {
  GuardReport r{kind, value};
  // Errors ignored: with the parent gone there is no one to tell (SIGPIPE is blocked).
  ssize_t n = send(sock, &r, sizeof r, MSG_NOSIGNAL);
  (void)n;
}

long parse_long(const char* s, bool* ok) {
  char* end = nullptr;
  errno = 0;
  long v = strtol(s, &end, 10);
  *ok = errno == 0 && end != s && *end == '\0' && v >= 0;
  return v;
}

double now_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

bool parent_gone() { return getppid() != parent; }

bool group_empty(pid_t group) { return kill(-group, 0) != 0 && errno == ESRCH; }

// Signal every child we hold (steps and subreaped orphans) and the group each leads.
void signal_children(int sig) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/children", static_cast<int>(getpid()));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[8192];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return;
  buf[n] = '\0';
  for (char* p = buf; *p;) {
    char* end = nullptr;
    long pid = strtol(p, &end, 10);
    if (end == p) break;
    if (pid > 1) {
      kill(static_cast<pid_t>(-pid), sig);  // ESRCH when it leads no group
      kill(static_cast<pid_t>(pid), sig);
    }
    p = end;
  }
}

// Waits for one of our signals, or until `seconds` (negative: no limit) have passed.
bool wait_signal(double seconds, signalfd_siginfo* info) {
  pollfd p{signals, POLLIN, 0};
  int ms = seconds < 0 ? -1 : static_cast<int>(seconds * 1000.0) + 1;
  if (poll(&p, 1, ms) <= 0) return false;
  return read(signals, info, sizeof *info) == static_cast<ssize_t>(sizeof *info);
}

// Our worker is gone: end whatever we hold, the running step's group included.
[[noreturn]] void end_everything(pid_t step) {
  if (step > 0) {
    kill(-step, SIGTERM);
    kill(step, SIGTERM);
  }
  signal_children(SIGTERM);
  const double deadline = now_seconds() + static_cast<double>(kill_wait_ms) / 1000.0;
  for (;;) {
    int status = 0;
    pid_t p;
    while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
    }
    if (p < 0 && errno == ECHILD && (step <= 0 || group_empty(step))) _exit(0);
    double left = deadline - now_seconds();
    if (left <= 0) break;
    signalfd_siginfo info;
    wait_signal(left < 0.05 ? left : 0.05, &info);  // SIGCHLD, or a look at the group
  }
  if (step > 0) kill(-step, SIGKILL);
  signal_children(SIGKILL);
  _exit(0);
}

bool read_fully(int fd, char* buf, size_t size) {
  while (size > 0) {
    ssize_t n = read(fd, buf, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buf += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// In the step's child: `from` becomes `to` (or /dev/null for stdio when `from` < 0).
bool place(int from, int to) {
  if (from < 0) {
    if (to > 2) return true;  // fd 3 not passed: left closed
    from = open("/dev/null", (to == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
    if (from < 0) return false;
  }
  return dup2(from, to) == to;  // dup2 clears close-on-exec on `to`
}

struct Step {
  pid_t pid = -1;
  double deadline = 0;  // of its time limit; 0 = none
  int limit_seconds = 0;
  bool ending = false;  // SIGTERM sent (time limit, or SIGUSR2)
  double kill_at = 0;   // when ending: SIGKILL then
  bool killed = false;
  bool reaped = false;
  int status = 0;
};

// Reads one request and starts its step. False at end-of-file (the thread is done, or its
// process died).
enum class Read { kStarted, kForkFailed, kRefused, kGoodbye, kEof };
Read start_step(Step* step) {
  SpawnHeader h;
  int fds[4] = {-1, -1, -1, -1};
  char control[CMSG_SPACE(sizeof fds)];
  iovec iov{&h, sizeof h};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  ssize_t n;
  while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (n <= 0) return Read::kEof;
  int received = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    int count = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    for (int i = 0; i < count; ++i) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      if (received < 4) fds[received++] = fd;
      else close(fd);
    }
  }
  auto close_received = [&] {
    for (int i = 0; i < received; ++i) close(fds[i]);
  };
  if (static_cast<size_t>(n) < sizeof h &&
      !read_fully(sock, reinterpret_cast<char*>(&h) + n, sizeof h - static_cast<size_t>(n))) {
    close_received();
    return Read::kEof;
  }
  if (h.magic == merlin::guard::kGoodbyeMagic) {
    close_received();
    return Read::kGoodbye;
  }
  int wanted = __builtin_popcount(h.fd_mask & 0xf);
  if (h.magic != merlin::guard::kSpawnMagic || h.bytes > merlin::guard::kMaxRequestBytes ||
      wanted != received || h.argc == 0) {
    close_received();
    report(ReportKind::kGuardFailed, EINVAL);
    return Read::kRefused;  // the worker gives up on us: our reading is out of step now
  }
  char* text = static_cast<char*>(malloc(h.bytes + 1));
  size_t words = 2 + static_cast<size_t>(h.argc) + h.envc;
  char** word = static_cast<char**>(calloc(words + 2, sizeof(char*)));
  if (!text || !word || !read_fully(sock, text, h.bytes)) {
    free(text);
    free(word);
    close_received();
    return text && word ? Read::kEof : (report(ReportKind::kGuardFailed, ENOMEM), Read::kRefused);
  }
  text[h.bytes] = '\0';
  size_t found = 0;
  for (char *p = text, *end = text + h.bytes; p < end && found < words; p += strlen(p) + 1)
    word[found++] = p;
  if (found != words) {
    free(text);
    free(word);
    close_received();
    report(ReportKind::kGuardFailed, EINVAL);
    return Read::kRefused;
  }
  // word: exe, cwd, argv[0..argc), NULL, env[0..envc), NULL
  char** argv = word + 2;
  char** envp = static_cast<char**>(calloc(h.envc + 1, sizeof(char*)));
  if (!envp) {
    free(text);
    free(word);
    close_received();
    report(ReportKind::kGuardFailed, ENOMEM);
    return Read::kRefused;
  }
  for (uint32_t i = 0; i < h.envc; ++i) envp[i] = word[2 + h.argc + i];
  word[2 + h.argc] = nullptr;  // ends argv (its slot's string is in envp now)

  int slot[4] = {-1, -1, -1, -1};  // the passed descriptor for each of the step's fds 0..3
  for (int i = 0, k = 0; i < 4; ++i)
    if (h.fd_mask & (1u << i)) slot[i] = fds[k++];

  // vfork: the child borrows our memory until its execve, so no page tables are copied and
  // none torn down at the exec (fork's share of a trivial step's CPU: about 0.07 ms of 1.3,
  // docs/scaling.md). Safe here: we are single-threaded and install no signal handler (the
  // child can run none of ours), and the child makes only system calls, then execs or _exits.
  // It writes `moved` and `ok` on our stack, which we do not read after, and errno, which we
  // read only when vfork fails.
  const pid_t pid = vfork();
  if (pid == 0) {
    setpgid(0, 0);
    sigaction(SIGCHLD, &original_chld, nullptr);
    sigprocmask(SIG_SETMASK, &original_mask, nullptr);
    // Out of the way of 0..3 first, so that no placement overwrites a descriptor still to come.
    int moved[4];
    for (int i = 0; i < 4; ++i) moved[i] = slot[i] < 0 ? -1 : fcntl(slot[i], F_DUPFD_CLOEXEC, 10);
    bool ok = true;
    for (int i = 0; i < 4; ++i) {
      if (slot[i] >= 0 && moved[i] < 0) ok = false;
      if (ok && !place(moved[i], i)) ok = false;
    }
    if (ok && slot[3] < 0) close(3);
    if (!ok || chdir(word[1]) != 0) {
      report(ReportKind::kSetupFailed, errno);
      _exit(127);
    }
    execve(word[0], argv, envp);
    report(ReportKind::kExecFailed, errno);
    _exit(127);
  }
  const int fork_error = errno;
  close_received();
  free(text);
  free(word);
  free(envp);
  if (pid < 0) {
    report(ReportKind::kGuardFailed, fork_error);
    return Read::kForkFailed;  // the next request may find the system less busy
  }
  *step = Step{};
  step->pid = pid;
  if (h.time_limit_ms > 0) {
    step->deadline = now_seconds() + static_cast<double>(h.time_limit_ms) / 1000.0;
    step->limit_seconds = static_cast<int>((h.time_limit_ms + 999) / 1000);
  }
  report(ReportKind::kStarted, pid);
  return Read::kStarted;
}

void begin_ending(Step* step) {
  step->ending = true;
  step->kill_at = now_seconds() + static_cast<double>(kill_wait_ms) / 1000.0;
  kill(-step->pid, SIGTERM);
  kill(step->pid, SIGTERM);  // in case it left its group
}

void reap(Step* step) {
  int status = 0;
  pid_t p;
  while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
    if (step->pid > 0 && p == step->pid) {
      step->reaped = true;
      step->status = status;
    }
  }
}

// Runs the step until it has ended and its status has been reported.
void run_step(Step* step) {
  bool socket_quiet = false;
  for (;;) {
    reap(step);
    const double now = now_seconds();
    if (step->reaped && (!step->ending || step->killed || group_empty(step->pid))) {
      report(ReportKind::kStepStatus, step->status);
      return;
    }
    if (!step->ending && step->deadline > 0 && now >= step->deadline) {
      report(ReportKind::kTimedOut, step->limit_seconds);
      begin_ending(step);
    }
    if (step->ending && !step->killed && now >= step->kill_at) {
      kill(-step->pid, SIGKILL);
      if (!step->reaped) kill(step->pid, SIGKILL);  // unreaped: the pid is still the step's
      step->killed = true;
    }
    // Sleep until a signal, the deadline, or (ending, after its SIGTERM) a look at the group:
    // its last members may be another member's children, whose end we are not told of.
    double wait = -1;
    if (step->ending && !step->killed) wait = step->kill_at - now;
    else if (!step->ending && step->deadline > 0) wait = step->deadline - now;
    if (step->ending && (wait < 0 || wait > 0.02)) wait = 0.02;
    pollfd p[2] = {{signals, POLLIN, 0}, {sock, POLLIN, 0}};
    int ms = wait < 0 ? -1 : static_cast<int>(wait * 1000.0) + 1;
    if (poll(p, socket_quiet ? 1 : 2, ms) < 0) continue;
    if (!socket_quiet && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      // The thread sends nothing while its step runs: this is its end of file, so the
      // thread's process died (or it gave up on the step): end everything. Bytes instead
      // (a protocol error) wait until the step has ended.
      char c;
      if (recv(sock, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
        end_everything(step->reaped ? -1 : step->pid);
      socket_quiet = true;
    }
    if (!(p[0].revents & POLLIN)) continue;
    signalfd_siginfo info;
    while (read(signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig == SIGHUP && parent_gone()) end_everything(step->reaped ? -1 : step->pid);
      if (sig == SIGUSR2 && static_cast<pid_t>(info.ssi_pid) == parent && !step->ending &&
          !step->reaped)
        begin_ending(step);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr,
            "merlin-guard: started by merlin's workers, not by hand\n"
            "usage: merlin-guard <parent pid> <kill wait ms>   (fd 3: the worker's socket)\n");
    return merlin::guard::kExitUsage;
  }
  bool ok_pid = false, ok_wait = false;
  parent = static_cast<pid_t>(parse_long(argv[1], &ok_pid));
  kill_wait_ms = parse_long(argv[2], &ok_wait);
  if (!ok_pid || !ok_wait) {
    fprintf(stderr, "merlin-guard: bad parent pid '%s' or kill wait '%s'\n", argv[1], argv[2]);
    return merlin::guard::kExitUsage;
  }

  // Blocked signals are read from a signalfd; the steps get the mask we were given.
  sigset_t taken;
  sigemptyset(&taken);
  for (int s : {SIGCHLD, SIGHUP, SIGTERM, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE})
    sigaddset(&taken, s);
  sigprocmask(SIG_BLOCK, &taken, &original_mask);
  // SIGCHLD ignored would make the kernel reap the steps before we see their status.
  struct sigaction default_chld {};
  default_chld.sa_handler = SIG_DFL;
  sigemptyset(&default_chld.sa_mask);
  sigaction(SIGCHLD, &default_chld, &original_chld);
  signals = signalfd(-1, &taken, SFD_CLOEXEC | SFD_NONBLOCK);
  sock = fcntl(merlin::guard::kSocketFd, F_DUPFD_CLOEXEC, 10);
  if (signals < 0 || sock < 0) {
    fprintf(stderr, "merlin-guard: %s\n", strerror(errno));
    return merlin::guard::kExitUsage;
  }
  close(merlin::guard::kSocketFd);

  prctl(PR_SET_PDEATHSIG, merlin::guard::kParentDeathSignalNumber);
  // The parent may have died before the prctl: then we were reparented already.
  if (parent_gone()) return merlin::guard::kExitOrphaned;
  // Orphaned descendants of the steps come to us, so we can end them with the worker.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Normally the worker made us a group leader (posix_spawn's SETPGROUP); started otherwise,
  // we make our own group so that nothing sent to the worker's group reaches us.
  if (getpgrp() != getpid()) setpgid(0, 0);

  for (;;) {
    // Between steps: a request, our parent's death, or orphans of earlier steps to reap.
    pollfd p[2] = {{signals, POLLIN, 0}, {sock, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) continue;
    if (p[0].revents & POLLIN) {
      signalfd_siginfo info;
      while (read(signals, &info, sizeof info) == static_cast<ssize_t>(sizeof info))
        if (info.ssi_signo == SIGHUP && parent_gone()) end_everything(-1);
      int status;
      while (waitpid(-1, &status, WNOHANG) > 0) {
      }
    }
    if (!(p[1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    Step step;
    switch (start_step(&step)) {
      case Read::kGoodbye:
        return 0;
      case Read::kEof:
        // No goodbye: the thread's process died (its descriptors close before getppid() says
        // so).
        end_everything(-1);
      case Read::kForkFailed:
        break;
      case Read::kRefused:
        return 1;
      case Read::kStarted:
        run_step(&step);
        break;
    }
  }
}
