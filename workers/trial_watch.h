#pragma once
/// Pruning running trials (docs/tuning.md, "Pruning"). While a tuned task of a step with
/// `prune` runs, a thread of the worker reads, every `prune` seconds, the newest line of the
/// trial's metric file and the values at that budget of the trials that already finished its
/// rung (their own metric files, named by the state store's standings), and asks
/// tune::prune_verdict. A trial out of its rung's top 1/η is ended through the executor
/// (SIGTERM to its group, SIGKILL after the kill wait); the slot then records it as pruned.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/study/task_renderer.h"
#include "merlin/core/tune/prune_rule.h"
#include "workers/step_executor.h"

namespace merlin {

class StudyGraph;

class TrialWatch {
 public:
  /// Every argument must outlive the watch. Starts its thread.
  TrialWatch(StateStore& store, const StudyGraph& graph, const TaskRenderer& renderer,
             StepExecutor& executor);
  /// Stops and joins the thread.
  ~TrialWatch();
  TrialWatch(const TrialWatch&) = delete;
  TrialWatch& operator=(const TrialWatch&) = delete;

  /// The shortest `prune` period of the graph's tuned steps; nullopt when none prunes (the
  /// worker makes no watch then).
  static std::optional<std::chrono::milliseconds> period(const StudyGraph& graph);

  /// Watches `task` from now on, if its step prunes (a no-op otherwise). The slot calls it just
  /// before running the task, and done() after.
  void watch(const RenderedTask& task);
  /// Stops watching `task`: the verdict that ended its run, or nullopt when the watch did not.
  std::optional<tune::PruneVerdict> done(const RenderedTask& task);

 private:
  struct Watched {
    std::string metric_path, key;
    std::optional<tune::PruneVerdict> verdict;  ///< set once the run is being ended
  };
  struct Curve {
    long long size = -2;  ///< the file's size when read (-1: none); -2: never read
    std::vector<data::MetricPoint> points;
  };
  using Key = std::pair<std::uint32_t, std::uint64_t>;  ///< (instance, task)

  void loop();
  /// One look at every watched task; returns those to end, with their verdicts.
  std::vector<std::pair<Key, tune::PruneVerdict>> look();
  std::optional<tune::PruneVerdict> judge(const Key& key, const Watched& w,
                                          std::map<std::uint32_t, std::vector<tune::TrialStanding>>&
                                              standings);
  const std::vector<data::MetricPoint>& curve_of(InstanceId instance, std::uint32_t trial,
                                                 const std::string& key);

  StateStore& store_;
  const StudyGraph& graph_;
  const TaskRenderer& renderer_;
  StepExecutor& executor_;
  std::chrono::milliseconds period_;
  std::mutex mu_;  ///< guards watched_ and stop_
  std::condition_variable cv_;
  bool stop_ = false;
  std::map<Key, Watched> watched_;
  /// Only the watch thread touches these: other trials' curves, and their files' paths.
  std::map<std::pair<std::uint32_t, std::uint32_t>, Curve> curves_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> paths_;
  std::thread thread_;
};

}  // namespace merlin
