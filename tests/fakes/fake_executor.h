#pragma once
// A StepExecutor that runs nothing: it returns scripted exit codes per (task, sample) and
// records every call. Thread-safe, so it can sit under a worker with several slots.
//
// A task is named by its instance's base name, read back from the rendered script path
// ("B" for step B, "sim_X.1" for step sim with X.1), and its sample by MERLIN_SAMPLE_ID in the
// task's environment (0 for an unsampled step).
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/study/task_kind.h"
#include "workers/step_executor.h"

namespace merlin::testing {

class FakeExecutor : public StepExecutor {
 public:
  struct Call {
    std::string name;  ///< the instance's base name
    std::uint64_t sample = 0;
    TaskKind kind = TaskKind::kCmd;
    std::string script_text;
  };

  /// A scripted code: the run ended by merlin after its walltime (exit 143, timed_out).
  static constexpr int kTimedOut = -1;
  /// A scripted code: the run fails with ErrorCode::kNoSpace (a full disk), nothing run.
  static constexpr int kNoSpace = -2;

  /// The next runs of (name, sample) exit with `codes`, in order; after them, with 0.
  void script(const std::string& name, std::uint64_t sample, std::vector<int> codes);
  /// Every run of any sample of `name` without a script of its own exits with `code`.
  void script_all(const std::string& name, int code);

  Result<void> prepare(const RenderedTask& task) override;
  Result<ExecResult> run(const RenderedTask& task) override;
  Result<void> mark_finished(const RenderedTask& task) override;

  std::vector<Call> calls() const;
  /// Runs of (name, sample), in order.
  std::vector<Call> calls_of(const std::string& name, std::uint64_t sample) const;
  /// Runs of any sample of `name`.
  std::size_t count_of(const std::string& name) const;
  /// (name, sample) → number of runs.
  std::map<std::pair<std::string, std::uint64_t>, int> run_counts() const;
  std::vector<Call> finished() const;
  std::size_t prepared() const;

  /// Splits a rendered task into (name, sample, kind) as described above.
  static Call identify(const RenderedTask& task);

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::uint64_t>, std::deque<int>> scripted_;
  std::map<std::string, int> all_;
  std::vector<Call> calls_;
  std::vector<Call> finished_;
  std::size_t prepared_ = 0;
};

}  // namespace merlin::testing
