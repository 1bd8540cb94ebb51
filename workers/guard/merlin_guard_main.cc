// merlin-guard: sits between a worker and one step, so that the step dies with its worker.
//
// The worker posix_spawns this program (a fresh single-threaded process, so it may use
// anything, unlike code between fork and exec in the multithreaded worker) as the leader of
// a new process group, with the step's environment, cwd and stdio already in place. It asks
// the kernel for SIGHUP when the thread that started it exits (PR_SET_PDEATHSIG: that thread
// is blocked in waitpid on us until we exit, so it outlives us unless the process dies), then
// forks the step into its own group and waits:
//  - the step ends: its wait status goes back through fd 3 and we exit;
//  - our parent dies (kill -9 of merlin): SIGTERM to the group, wait until every descendant
//    is gone (we are their subreaper, so orphans come to us) or the kill wait has passed,
//    then SIGKILL the group (ourselves included);
//  - the step's time limit (its `walltime`) passes: we report kTimedOut, then end the group
//    the same way, reporting the step's status once it is reaped;
//  - our parent sends us SIGUSR2 (a pruned trial): the same, without kTimedOut.
// SIGTERM and the like sent to the group (the worker's terminate_running, a step's `kill 0`)
// are blocked here: the step takes them, we report how it ended. Protocol: guard_protocol.h.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <initializer_list>

#include "workers/guard_protocol.h"

static_assert(merlin::guard::kEndStepSignalNumber == SIGUSR2);
static_assert(merlin::guard::kParentDeathSignalNumber == SIGHUP);

extern char** environ;

namespace {

using merlin::guard::GuardReport;
using merlin::guard::ReportKind;

int report_fd = merlin::guard::kReportFd;  // moved in the step's child when fd 3 is passed

void report(ReportKind kind, int value) {
  GuardReport r{kind, value};
  // Errors ignored: with the parent gone there is no one to tell (SIGPIPE is blocked).
  ssize_t n = write(report_fd, &r, sizeof r);
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

// Our parent is gone, or the step's time is up: end the step's group and whatever it left
// (our subreaped orphans), SIGTERM first, SIGKILL once the kill wait has passed. With
// `report_status`, the step's wait status is reported when it is reaped (a timed-out step:
// the worker is still there to read it).
[[noreturn]] void end_the_step(const sigset_t& waited, long kill_wait_ms, pid_t step,
                               bool report_status) {
  // Our group (we have SIGTERM blocked), and the step by pid in case it left the group.
  kill(0, SIGTERM);
  bool step_reaped = false;
  kill(step, SIGTERM);
  const double deadline = now_seconds() + static_cast<double>(kill_wait_ms) / 1000.0;
  for (;;) {
    int status = 0;
    pid_t p;
    while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
      if (p != step) continue;
      step_reaped = true;
      if (report_status) report(ReportKind::kStepStatus, status);
    }
    if (p < 0 && errno == ECHILD) _exit(0);  // no descendant left
    double left = deadline - now_seconds();
    if (left <= 0) break;
    const long left_ns = static_cast<long>(left * 1e9);
    timespec ts{left_ns / 1'000'000'000, left_ns % 1'000'000'000};
    siginfo_t info;
    sigtimedwait(&waited, &info, &ts);  // SIGCHLD, or the deadline
  }
  if (!step_reaped) kill(step, SIGKILL);  // not reaped: the pid is still the step's
  kill(0, SIGKILL);                       // ourselves too: nothing is left to report to
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr,
            "merlin-guard: started by merlin's workers, not by hand\n"
            "usage: merlin-guard <parent pid> <kill wait ms> <time limit ms> <executable> "
            "<argv0> [args...]\n");
    return merlin::guard::kExitUsage;
  }
  bool ok_pid = false, ok_wait = false, ok_limit = false;
  const pid_t expected_parent = static_cast<pid_t>(parse_long(argv[1], &ok_pid));
  const long kill_wait_ms = parse_long(argv[2], &ok_wait);
  const long limit_ms = parse_long(argv[3], &ok_limit);
  if (!ok_pid || !ok_wait || !ok_limit) {
    fprintf(stderr, "merlin-guard: bad parent pid '%s', kill wait '%s' or time limit '%s'\n",
            argv[1], argv[2], argv[3]);
    return merlin::guard::kExitUsage;
  }

  // Blocked signals are taken with sigwaitinfo; the step gets the mask we were given.
  sigset_t waited, original;
  sigemptyset(&waited);
  for (int s : {SIGCHLD, SIGHUP, SIGTERM, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE})
    sigaddset(&waited, s);
  sigprocmask(SIG_BLOCK, &waited, &original);
  // SIGCHLD ignored would make the kernel reap the step before we see its status.
  struct sigaction default_chld {
  }, original_chld{};
  default_chld.sa_handler = SIG_DFL;
  sigemptyset(&default_chld.sa_mask);
  sigaction(SIGCHLD, &default_chld, &original_chld);

  prctl(PR_SET_PDEATHSIG, merlin::guard::kParentDeathSignalNumber);
  // The parent may have died before the prctl: then we were reparented already.
  if (getppid() != expected_parent) return merlin::guard::kExitOrphaned;
  // Orphaned descendants of the step come to us, so we know when none is left.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Normally the worker made us a group leader (posix_spawn's SETPGROUP); started otherwise,
  // we make our own group so that signalling "our group" never reaches our parent's.
  if (getpgrp() != getpid()) setpgid(0, 0);
  fcntl(merlin::guard::kReportFd, F_SETFD, FD_CLOEXEC);
  const bool passing = fcntl(merlin::guard::kPassedFd, F_GETFD) != -1;
  if (passing) fcntl(merlin::guard::kPassedFd, F_SETFD, FD_CLOEXEC);

  const pid_t step = fork();
  if (step < 0) {
    report(ReportKind::kGuardFailed, errno);
    return 1;
  }
  if (step == 0) {
    sigaction(SIGCHLD, &original_chld, nullptr);
    sigprocmask(SIG_SETMASK, &original, nullptr);
    if (passing) {  // the passed fd becomes the step's 3; our reports move out of its way
      report_fd = fcntl(merlin::guard::kReportFd, F_DUPFD_CLOEXEC, merlin::guard::kPassedFd + 1);
      dup2(merlin::guard::kPassedFd, merlin::guard::kReportFd);  // not close-on-exec
      close(merlin::guard::kPassedFd);
    }
    execve(argv[4], argv + 5, environ);
    report(ReportKind::kExecFailed, errno);
    _exit(127);
  }

  // The step's deadline, on the monotonic clock (a limit of 0 is none).
  const double deadline = now_seconds() + static_cast<double>(limit_ms) / 1000.0;
  for (;;) {
    siginfo_t info;
    int sig;
    if (limit_ms > 0) {
      const double left = deadline - now_seconds();
      if (left <= 0) {
        report(ReportKind::kTimedOut, static_cast<int>((limit_ms + 999) / 1000));
        end_the_step(waited, kill_wait_ms, step, /*report_status=*/true);
      }
      const long left_ns = static_cast<long>(left * 1e9);
      timespec ts{left_ns / 1'000'000'000, left_ns % 1'000'000'000};
      sig = sigtimedwait(&waited, &info, &ts);
    } else {
      sig = sigwaitinfo(&waited, &info);
    }
    if (sig < 0) continue;  // EINTR, or the deadline (checked above)
    if (sig == merlin::guard::kParentDeathSignalNumber && getppid() != expected_parent)
      end_the_step(waited, kill_wait_ms, step, false);
    if (sig == merlin::guard::kEndStepSignalNumber && info.si_pid == expected_parent)
      end_the_step(waited, kill_wait_ms, step, /*report_status=*/true);
    if (sig != SIGCHLD) continue;  // the group's SIGTERM etc.: the step handles them
    int status = 0;
    pid_t p;
    while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
      if (p == step) {
        report(ReportKind::kStepStatus, status);
        return 0;
      }
    }
    // Our parent may have died while SIGHUP was pending behind SIGCHLD.
    if (getppid() != expected_parent) end_the_step(waited, kill_wait_ms, step, false);
  }
}
