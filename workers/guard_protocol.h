#pragma once
/// What `merlin-guard` (workers/guard/merlin_guard_main.cc) and the worker that starts it
/// (workers/guarded_spawn.cc) say to each other. Plain C types: the guardian links nothing.
///
///   merlin-guard <parent pid> <kill wait ms> <time limit ms> <executable> <argv0> [args...]
///
/// A time limit of 0 is none. Past a positive one (a step's `walltime`), the guardian reports
/// kTimedOut, SIGTERMs the step's group, waits until no descendant is left or the kill wait
/// has passed, then SIGKILLs the group (itself included, after reporting the step's status if
/// it had one).
/// with the step's environment, cwd and fds 0/1/2 already in place, and fd 3 the write end
/// of a pipe back to the parent. The guardian writes GuardReport records there. When fd 4 is
/// open too, the step gets it as its fd 3 (kPassedFd: a lean workspace's script).
#include <cstdint>

namespace merlin::guard {

inline constexpr int kReportFd = 3;
inline constexpr int kPassedFd = 4;
/// The signal the kernel sends the guardian when the thread that started it exits
/// (PR_SET_PDEATHSIG); a stray one is told apart by getppid().
inline constexpr int kParentDeathSignalNumber = 1;  // SIGHUP
/// Sent by the parent to the guardian alone: end the step now, as when its time limit passes
/// (SIGTERM to the group, SIGKILL after the kill wait), reporting its status once reaped but
/// no kTimedOut (a pruned trial, docs/tuning.md). The same signal from anyone else (a step's
/// `kill -USR2 0`) is ignored.
inline constexpr int kEndStepSignalNumber = 12;  // SIGUSR2

enum class ReportKind : std::int32_t {
  kStepStatus = 1,   ///< value: the step's wait status (as waitpid gives it)
  kExecFailed = 2,   ///< value: errno of the step's execve
  kGuardFailed = 3,  ///< value: errno of the guardian's own fork
  kTimedOut = 4,     ///< value: the time limit in seconds; the step is being ended
};

struct GuardReport {
  ReportKind kind;
  std::int32_t value;
};

/// Exit codes of the guardian itself (when it has no step status to report).
inline constexpr int kExitUsage = 120;     ///< bad arguments
inline constexpr int kExitOrphaned = 121;  ///< its parent was gone before the step started

}  // namespace merlin::guard
