#pragma once
/// Starting a step so that it dies with its worker: the spawn mechanics under ProcessExecutor.
///
/// The worker posix_spawns `merlin-guard` (workers/guard/), a tiny single-threaded program that
/// forks the step and waits for it. The guardian leads a new process group, which the step
/// joins: signalling the group (terminate_running) reaches the step and whatever it started.
/// When the worker dies (even by SIGKILL), the kernel tells the guardian (PR_SET_PDEATHSIG),
/// which SIGTERMs the group and SIGKILLs what is left after the kill wait.
#include <sys/types.h>

#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin {

/// What to run, and what it starts with. Nothing else of ours reaches it: no other descriptor
/// (fds 3 and up are closed), nor our environment unless copied into `env`.
struct SpawnRequest {
  /// argv[0] is looked up in our PATH when it has no '/' (as posix_spawnp does) and passed
  /// on as the step's argv[0] unchanged. Must not be empty.
  std::vector<std::string> argv;
  std::vector<std::string> env;  ///< the step's whole environment, "NAME=value"
  std::string cwd;               ///< the step's working directory (must exist)
  /// The descriptors that become the step's 0, 1 and 2; -1 = /dev/null. Each must be 3 or
  /// more; the caller keeps them open until start() returns (the step has its own copies).
  std::array<int, 3> stdio{-1, -1, -1};
  /// A descriptor that becomes the step's fd 3 (a lean workspace's script, read as
  /// /dev/fd/3); -1 = none, fd 3 closed like every other. The caller keeps it open until
  /// start() returns.
  int fd3 = -1;
  /// The step's walltime: once it has run this long, the guardian ends its whole group
  /// (SIGTERM, then SIGKILL after the kill wait) and wait() reports it through timed_out().
  /// 0 = no limit.
  std::chrono::milliseconds time_limit{0};
};

struct GuardOptions {
  /// The guardian program; empty = guard_program().
  std::string program;
  /// After its worker dies, how long the guardian waits between SIGTERM and SIGKILL.
  std::chrono::milliseconds kill_wait{10'000};
};

/// `merlin-guard` beside our own executable (/proc/self/exe), or $MERLIN_GUARD when set.
const std::string& guard_program();

/// One started step and its guardian. Move-only; wait() once.
class GuardedProcess {
 public:
  /// Starts the guardian, which starts the step. Errors (the guardian or the cwd cannot be
  /// found, argv[0] is not in PATH) name what failed. Thread-safe, and must be waited on the
  /// thread that started it: the guardian watches that thread, not the process.
  static Result<GuardedProcess> start(const SpawnRequest& request, const GuardOptions& options);

  GuardedProcess(GuardedProcess&& other) noexcept;
  GuardedProcess& operator=(GuardedProcess&&) = delete;
  GuardedProcess(const GuardedProcess&) = delete;
  /// Not waited: SIGKILL to the group, then reaps the guardian.
  ~GuardedProcess();

  /// The step's process group (the guardian's pid): kill(-group(), sig) reaches the step.
  pid_t group() const { return pid_; }

  /// Blocks until the step and its guardian have ended. The step's wait status (as
  /// waitpid(2) gives it: WIFEXITED/WTERMSIG apply); when the guardian itself was killed
  /// (SIGKILL to the group), the guardian's status. An error when the step could not be
  /// executed (e.g. its shell is not executable) or the guardian failed.
  Result<int> wait();
  /// After wait(): the step ran past its time limit and was ended by the guardian (its
  /// status is then that of the signal that ended it, or of its exit if it left in time).
  bool timed_out() const { return timed_out_; }

 private:
  GuardedProcess(pid_t pid, int report_fd) : pid_(pid), report_fd_(report_fd) {}
  pid_t pid_ = -1;
  int report_fd_ = -1;  ///< read end of the guardian's report pipe
  bool waited_ = false;
  bool timed_out_ = false;
};

}  // namespace merlin
