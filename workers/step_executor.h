#pragma once
/// Running one rendered task: the side effect at the end of the worker loop, behind a small
/// interface (the real one spawns a shell; tests use a recording fake).
#include "merlin/core/study/task_renderer.h"
#include "merlin/core/util/result.h"

namespace merlin {

struct ExecResult {
  int exit_code = 0;   ///< the script's exit status; 128+N when killed by signal N
  int signal = 0;      ///< N when killed by signal N (so 143 from `exit 143` is told apart)
  double seconds = 0;  ///< wall time
  /// Ended by merlin after the task's walltime (RenderedTask::walltime_seconds): the step's
  /// group got SIGTERM, then SIGKILL after the kill wait, and its stderr a line saying so.
  bool timed_out = false;
};

/// Where a lean workspace's step reads its script and writes its output
/// (docs/lean-workspace.md): open descriptors owned by the caller; -1 = as in Merlin's layout.
struct StepStreams {
  int script_fd = -1;  ///< the script, read by the shell as /dev/fd/3 (no file on the shared FS)
  int out_fd = -1;     ///< becomes the step's stdout
  int err_fd = -1;     ///< becomes the step's stderr
};

class StepExecutor {
 public:
  virtual ~StepExecutor() = default;
  /// Writes the task's directory and script (idempotent: overwrites). Used alone by --dry.
  virtual Result<void> prepare(const RenderedTask& task) = 0;
  /// prepare(), then runs the script with the task's shell in its directory, stdout/stderr to
  /// its .out/.err, the task's env added. Thread-safe.
  virtual Result<ExecResult> run(const RenderedTask& task) = 0;
  /// Runs the task as run() does, but with no script file written nor directory made: the
  /// shell reads the script from `streams.script_fd` and stdout/stderr go to the given fds.
  /// Thread-safe. The default (fakes) is run(task).
  virtual Result<ExecResult> run_streams(const RenderedTask& task, const StepStreams& streams) {
    (void)streams;
    return run(task);
  }
  /// Writes the MERLIN_FINISHED marker in the task's directory.
  virtual Result<void> mark_finished(const RenderedTask& task) = 0;
  /// Ends every step running now, and any started after: SIGTERM to its process group, and
  /// SIGKILL to those still there after the executor's grace period. Thread-safe.
  virtual void terminate_running() {}
  /// Ends the run of task `sample` of `instance` if this executor is running it: the step's
  /// guardian SIGTERMs its group, then SIGKILLs what is left after the kill wait, and run()
  /// returns how it ended (a pruned trial, docs/tuning.md). False when it is not running
  /// here. Thread-safe.
  virtual bool end_run(InstanceId instance, std::uint64_t sample) {
    (void)instance;
    (void)sample;
    return false;
  }
};

}  // namespace merlin
