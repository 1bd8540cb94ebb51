#pragma once
/// The real StepExecutor: `<shell> <script>` in the task directory, in a process group of its
/// own, with only stdin (/dev/null), stdout and stderr (its .out and .err) open, started
/// through a guardian so that it dies with this process (workers/guarded_spawn.h).
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "workers/step_executor.h"

namespace merlin {

/// How long a step may take to end after SIGTERM before it gets SIGKILL (`--kill-wait`).
inline constexpr std::chrono::milliseconds kDefaultKillWait{10'000};

struct ProcessExecutorOptions {
  std::chrono::milliseconds kill_wait = kDefaultKillWait;
  /// The step guardian (`merlin-guard`); empty = the one beside our executable.
  std::string guard_program;
};

class ProcessExecutor : public StepExecutor {
 public:
  explicit ProcessExecutor(ProcessExecutorOptions options = {});
  /// Returns at once unless a terminated step left processes of its group behind: then it
  /// waits until kill_wait after the SIGTERM and kills them (no step outlives its run).
  ~ProcessExecutor() override;
  ProcessExecutor(const ProcessExecutor&) = delete;
  ProcessExecutor& operator=(const ProcessExecutor&) = delete;

  Result<void> prepare(const RenderedTask& task) override;
  /// ExecResult::signal tells a step killed by a signal from one that exited. The first run
  /// of a task creates its .out/.err; a later one finds them there (a retry, MERLIN_RESTART,
  /// a redelivery, `merlin restart`) and appends after a marker line naming task.attempt + 1
  /// and task.again ("rerun" when empty). If this process dies, the step's process group
  /// gets SIGTERM, and SIGKILL after kill_wait.
  Result<ExecResult> run(const RenderedTask& task) override;
  /// The same with the script from `streams.script_fd` (as /dev/fd/3, which the step keeps
  /// open) and stdout/stderr to the given fds; writes nothing, makes no directory.
  Result<ExecResult> run_streams(const RenderedTask& task, const StepStreams& streams) override;
  Result<void> mark_finished(const RenderedTask& task) override;
  /// SIGTERM to the process group of every running step, and of any step started from now on;
  /// `kill_wait` later, SIGKILL to those groups (to what is left of them). Thread-safe; calls
  /// after the first change nothing.
  void terminate_running() override;
  /// SIGUSR2 to the task's guardian, which ends the step's group as for a walltime
  /// (workers/guard_protocol.h).
  bool end_run(InstanceId instance, std::uint64_t sample) override;

 private:
  void kill_after_wait();  ///< the escalation thread
  Result<ExecResult> spawn(const RenderedTask& task, const StepStreams& io);

  ProcessExecutorOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;  ///< wakes the escalation thread when closing_
  struct Running {
    std::pair<std::uint32_t, std::uint64_t> task;  ///< instance, sample
    pid_t guardian;
  };
  /// Process groups of running steps, with the task each runs and its guardian.
  std::map<pid_t, Running> running_;
  std::set<pid_t> terminated_;  ///< process groups sent SIGTERM
  std::optional<std::chrono::steady_clock::time_point> kill_at_;  ///< set by terminate_running
  bool killed_ = false;   ///< kill_at_ has passed: steps still starting get SIGKILL at once
  bool closing_ = false;  ///< the destructor runs
  std::thread escalator_;
};

}  // namespace merlin
