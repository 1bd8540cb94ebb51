#pragma once
/// Starting a step so that it dies with its worker: the spawn mechanics under ProcessExecutor.
///
/// Each worker thread that runs steps has its own `merlin-guard` (workers/guard/), a tiny
/// single-threaded program started once and asked over a socket to start that thread's steps,
/// one after another (workers/guard_protocol.h). It forks each step into a process group of
/// its own: signalling the group (terminate_running) reaches the step and whatever it started.
/// When the worker dies (even by SIGKILL), the kernel tells the guardian (PR_SET_PDEATHSIG),
/// which SIGTERMs the step's group and the orphans it holds, and SIGKILLs what is left after the
/// kill wait. Per step this costs a message each way, not a process: the guardian is started
/// again only when its options change or it has died.
#include <sys/types.h>

#include <array>
#include <chrono>
#include <memory>
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

class GuardServer;  // a thread's guardian (guarded_spawn.cc)

/// One started step and its guardian. Move-only; wait() once.
class GuardedProcess {
 public:
  /// Asks this thread's guardian (started on first use) to start the step. Errors (the
  /// guardian cannot be started, argv[0] is not in PATH) name what failed. Thread-safe, and
  /// must be waited on the thread that started it: the guardian watches that thread.
  static Result<GuardedProcess> start(const SpawnRequest& request, const GuardOptions& options);

  GuardedProcess(GuardedProcess&& other) noexcept;
  GuardedProcess& operator=(GuardedProcess&&) = delete;
  GuardedProcess(const GuardedProcess&) = delete;
  /// Not waited: SIGKILL to the step's group, then waits for the guardian's report of it.
  ~GuardedProcess();

  /// The step's process group (its pid): kill(-group(), sig) reaches the step.
  pid_t group() const { return pid_; }
  /// The guardian that runs it: kill(guardian(), guard::kEndStepSignalNumber) ends the step.
  pid_t guardian() const;

  /// Blocks until the step has ended (and, when it was ended for its time limit, its group).
  /// The step's wait status (as waitpid(2) gives it: WIFEXITED/WTERMSIG apply). An error when
  /// the step could not be executed (e.g. its shell is not executable, its cwd is gone).
  /// When the guardian died under the step, the step's group is killed and the status is
  /// that of a SIGKILL (lost_guardian() says so).
  Result<int> wait();
  /// After wait(): the step ran past its time limit and was ended by the guardian (its
  /// status is then that of the signal that ended it, or of its exit if it left in time).
  bool timed_out() const { return timed_out_; }
  /// After wait(): the pid of the guardian that died before its step ended, 0 if none did.
  pid_t lost_guardian() const { return lost_guardian_; }

 private:
  GuardedProcess(pid_t pid, std::shared_ptr<GuardServer> server, int exec_error,
                 int setup_error, std::string cwd);
  pid_t pid_ = -1;
  std::shared_ptr<GuardServer> server_;
  int exec_error_ = 0;   ///< errno of the step's execve, 0 = none reported
  int setup_error_ = 0;  ///< errno of its chdir / fd set-up
  std::string cwd_;
  bool waited_ = false;
  bool timed_out_ = false;
  pid_t lost_guardian_ = 0;
};

}  // namespace merlin
