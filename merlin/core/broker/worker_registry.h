#pragma once
/// Who is working: each worker process records a heartbeat every second or so and learns
/// whether `stop-workers` asked it to stop. Used by `query-workers`, `stop-workers` and
/// `monitor`.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin {

/// A worker process whose heartbeat is older than this is dead: the tasks it held go back to
/// the queue at once (`run-workers --dead-after`). Workers beat about every second.
inline constexpr std::chrono::milliseconds kDefaultDeadAfter{10'000};

/// The one liveness rule: a worker last seen at `seen_ms` (epoch ms) is alive at `now_ms` while
/// its heartbeat is no older than `dead_after`, dead after that (as the brokers' reclaim scripts
/// judge it: dead when `now - seen > dead_after`).
inline bool is_alive(std::int64_t seen_ms, std::int64_t now_ms,
                     std::chrono::milliseconds dead_after = kDefaultDeadAfter) {
  return now_ms - seen_ms <= dead_after.count();
}

struct WorkerRecord {
  std::string id;    ///< "<host>.<pid>.<worker name>": unique per process and worker
  std::string name;  ///< the `merlin.resources.workers` entry
  std::string host;
  int pid = 0;
  std::string spec_name;  ///< study name the worker serves (description.name)
  std::string study;      ///< study key being worked on now ("" while waiting)
  std::vector<std::string> queues;
  int slots = 0;
  std::string job;           ///< the batch job it runs in (Slurm, Flux, LSF job id), "" if none
  std::int64_t seen_ms = 0;  ///< epoch ms of the last heartbeat (filled by `list`)
};

class WorkerRegistry {
 public:
  virtual ~WorkerRegistry() = default;
  /// Records a heartbeat for `w` (stamped with now); returns true if a stop was requested.
  virtual Result<bool> beat(const WorkerRecord& w) = 0;
  /// The worker left: its record and any stop request go.
  virtual Result<void> remove(const std::string& id) = 0;
  /// Every record; those not seen for `forget_after_ms` are removed instead of listed.
  virtual Result<std::vector<WorkerRecord>> list(std::int64_t forget_after_ms = 600'000) = 0;
  /// Asks these workers to stop (they drain at their next heartbeat).
  virtual Result<void> request_stop(const std::vector<std::string>& ids) = 0;
};

}  // namespace merlin
