#pragma once
/// The StepExecutor of a lean workspace (docs/lean-workspace.md), around the real one: per task
/// it makes only the task's directory (the step's cwd, where the user's outputs go). The
/// rendered script is handed to the shell in memory (a memfd read as /dev/fd/3, so `shell:`
/// words such as `/usr/bin/env python3` work as with a file); the instance's script is written
/// once, with its sample tokens unsubstituted, for people to read. stdout/stderr are captured
/// to node-local temp files and appended to the per-process logs after the step exits
/// (workers/step_logs.h). MERLIN_FINISHED only when asked for (`merlin.finished_markers`).
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "merlin/core/study/task_renderer.h"
#include "workers/step_executor.h"
#include "workers/step_logs.h"

namespace merlin {

struct LeanExecutorOptions {
  bool finished_markers = false;  ///< write MERLIN_FINISHED after a success
  StepLogsOptions logs;
};

class LeanExecutor : public StepExecutor {
 public:
  /// `inner` runs the steps (run_streams); `renderer` names instance dirs and scripts and must
  /// outlive this executor.
  LeanExecutor(std::unique_ptr<StepExecutor> inner, const TaskRenderer& renderer,
               LeanExecutorOptions options);
  ~LeanExecutor() override;
  LeanExecutor(const LeanExecutor&) = delete;
  LeanExecutor& operator=(const LeanExecutor&) = delete;

  /// The task's directory and, once per instance and kind, the instance's script. Idempotent.
  Result<void> prepare(const RenderedTask& task) override;
  /// prepare(), then the step with its script from memory and its output captured, then the
  /// output appended to the logs. Thread-safe. A failure to append is logged, not returned:
  /// the step ran and its verdict stands.
  Result<ExecResult> run(const RenderedTask& task) override;
  Result<void> mark_finished(const RenderedTask& task) override;
  void terminate_running() override { inner_->terminate_running(); }
  bool end_run(InstanceId instance, std::uint64_t sample) override {
    return inner_->end_run(instance, sample);
  }

 private:
  Result<void> write_instance_script(const RenderedTask& task);
  /// A slot's stdout/stderr captures: reused from task to task (emptied after each append), so
  /// a task makes and frees no inode on the node either.
  struct Capture {
    int out = -1, err = -1;
  };
  Result<Capture> take_capture();
  void give_back(Capture c);

  std::unique_ptr<StepExecutor> inner_;
  const TaskRenderer& renderer_;
  LeanExecutorOptions options_;
  StepLogs logs_;
  std::mutex mu_;
  std::set<std::pair<std::uint32_t, int>> scripts_written_;  ///< (instance, kind)
  std::vector<Capture> free_captures_;  ///< at most one per slot that ran a task
};

}  // namespace merlin
