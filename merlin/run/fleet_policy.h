#pragma once
/// The worker fleet's decisions, apart from its loop (worker_fleet.cc acts on them): which
/// queues a hard fail left open, whether a study is worth serving, how much work is left for
/// us, each worker's options on a study, and what the workers' reports say once they stop.
/// Pure functions of their arguments.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "merlin/core/broker/study_registry.h"
#include "merlin/run/run_workers_options.h"
#include "merlin/run/worker_fleet.h"
#include "workers/worker.h"

namespace merlin::run {

/// `queues` without those in `stopped` (by a hard fail), in order.
std::vector<std::string> open_queues(const std::vector<std::string>& queues,
                                     const std::set<std::string>& stopped);

/// A study is worth serving if some worker of `plans` has a queue there not in `stopped`.
bool servable(const std::vector<WorkerPlan>& plans, const std::set<std::string>& stopped);

/// Messages queued, reserved or delayed on the queues of `stats` not in `stopped` (work stuck
/// on a stopped queue is nobody's here).
std::uint64_t work_outside(const std::vector<QueueStats>& stats,
                           const std::set<std::string>& stopped);

/// The options of `plan`'s worker on a study whose queues are `study_queues`: its open queues,
/// its slots, every open queue of the study to watch while idle, the lease renewal of `o`'s
/// lease, `o`'s delivery limit, the default scratch retry. None when a hard fail stopped all its
/// queues. The callbacks are the caller's to set.
std::optional<WorkerOptions> worker_options_for(const WorkerPlan& plan,
                                                const std::vector<std::string>& study_queues,
                                                const std::set<std::string>& stopped,
                                                const RunWorkersOptions& o);

/// What the workers' reports say once they stopped on a study.
struct ServeTally {
  bool worked = false;                   ///< some worker executed, skipped or split a task
  std::set<std::string> stopped_queues;  ///< stopped by a hard fail, now or before
  bool stopped_by_step = false;          ///< a step asked the workers to stop
};
ServeTally tally(const std::vector<WorkerReport>& reports);

}  // namespace merlin::run
