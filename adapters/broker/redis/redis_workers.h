#pragma once
/// Who is working: each worker process writes a heartbeat record into the hash
/// "merlin:workers" every second or so, and reads whether `stop-workers` asked it to stop (the
/// set "merlin:workers:stop"). Used by `query-workers`, `stop-workers` and `monitor`.
#include <cstdint>
#include <string>
#include <vector>

#include "adapters/broker/redis/redis_settings.h"
#include "merlin/util/result.h"

namespace merlin {

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

class RedisWorkerRegistry {
 public:
  explicit RedisWorkerRegistry(RedisSettings settings);

  /// Records a heartbeat for `w` (stamped with now); returns true if a stop was requested.
  Result<bool> beat(const WorkerRecord& w);
  /// The worker left: its record and any stop request go.
  Result<void> remove(const std::string& id);
  /// Every record; those not seen for `forget_after` are removed instead of listed.
  Result<std::vector<WorkerRecord>> list(std::int64_t forget_after_ms = 600'000);
  /// Asks these workers to stop (they drain at their next heartbeat).
  Result<void> request_stop(const std::vector<std::string>& ids);

 private:
  RedisSettings settings_;
};

}  // namespace merlin
