#pragma once
/// What `merlin-guard` (workers/guard/merlin_guard_main.cc) and the worker thread that starts it
/// (workers/guarded_spawn.cc) say to each other. Plain C types: the guardian links nothing.
///
///   merlin-guard <parent pid> <kill wait ms>       fd 3: a connected unix stream socket
///
/// One guardian serves one worker thread, for as many steps as that thread runs, one at a
/// time. For each step the thread sends a SpawnHeader (with the step's descriptors attached as
/// SCM_RIGHTS) and then the header's `bytes` of strings; the guardian forks the step into a
/// process group of its own and reports kStarted (the step's pid, which is its group), then
/// kStepStatus once the step has ended. kExecFailed/kSetupFailed come from the step's child
/// before it runs (in either order with kStarted), kTimedOut before the status of a step that
/// ran past its limit. The thread saying goodbye (kGoodbyeMagic) is the guardian's cue to exit;
/// the thread's process dying (PR_SET_PDEATHSIG, or the socket's end-of-file without a goodbye)
/// makes it end every step and every orphan it holds: SIGTERM, then SIGKILL after the kill wait.
#include <cstdint>

namespace merlin::guard {

/// The guardian's end of the socket, as it is started.
inline constexpr int kSocketFd = 3;
/// The signal the kernel sends the guardian when the thread that started it exits
/// (PR_SET_PDEATHSIG); a stray one, or a thread's exit, is told apart by getppid().
inline constexpr int kParentDeathSignalNumber = 1;  // SIGHUP
/// Sent by the parent to the guardian alone: end the running step now, as when its time limit
/// passes (SIGTERM to its group, SIGKILL after the kill wait), reporting its status once it is
/// reaped but no kTimedOut (a pruned trial, docs/tuning.md). The same signal from anyone else
/// is ignored, and so is one that arrives between steps.
inline constexpr int kEndStepSignalNumber = 12;  // SIGUSR2

inline constexpr std::uint32_t kSpawnMagic = 0x6d67'7331;  // "mgs1"
/// A header with this magic (and nothing attached) says the thread is done: the guardian exits
/// and leaves alone what earlier steps left running. End-of-file without it means the thread's
/// process died (its descriptors close before its children are reparented, so getppid() cannot
/// tell yet): the guardian ends everything it holds.
inline constexpr std::uint32_t kGoodbyeMagic = 0x6d67'7330;  // "mgs0"
/// The strings of one request, at most (an environment past this is refused, not cut).
inline constexpr std::uint32_t kMaxRequestBytes = 64u << 20;

/// Followed by `bytes` of NUL-terminated strings: the executable's path, the working
/// directory, `argc` arguments (argv[0] first), `envc` "NAME=value" entries.
struct SpawnHeader {
  std::uint32_t magic = kSpawnMagic;
  /// Bit i (0..3) set: the step's fd i is the next attached descriptor, in order. Unset: fds
  /// 0..2 are /dev/null, fd 3 is closed.
  std::uint32_t fd_mask = 0;
  std::int64_t time_limit_ms = 0;  ///< 0 = none
  std::uint32_t argc = 0;
  std::uint32_t envc = 0;
  std::uint32_t bytes = 0;
  std::uint32_t reserved = 0;
};

enum class ReportKind : std::int32_t {
  kStepStatus = 1,   ///< value: the step's wait status (as waitpid gives it)
  kExecFailed = 2,   ///< value: errno of the step's execve
  kGuardFailed = 3,  ///< value: errno of the guardian's fork, or EINVAL for a bad request
  kTimedOut = 4,     ///< value: the time limit in seconds; the step is being ended
  kStarted = 5,      ///< value: the step's pid (its process group)
  kSetupFailed = 6,  ///< value: errno of the step's chdir or descriptor set-up
};

struct GuardReport {
  ReportKind kind;
  std::int32_t value;
};

/// Exit codes of the guardian itself.
inline constexpr int kExitUsage = 120;     ///< bad arguments
inline constexpr int kExitOrphaned = 121;  ///< its parent was gone before it started serving

}  // namespace merlin::guard
