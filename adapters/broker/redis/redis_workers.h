#pragma once
/// Who is working: each worker process writes a heartbeat record into the hash
/// "merlin:workers" every second or so, and reads whether `stop-workers` asked it to stop (the
/// set "merlin:workers:stop"). Used by `query-workers`, `stop-workers` and `monitor`. The
/// beat also stamps "merlin:workers:beat" (id -> the server's epoch ms), which brokers read to
/// tell dead consumers (RedisSettings::dead_after).
#include <cstdint>
#include <string>
#include <vector>

#include "adapters/broker/redis/redis_pool.h"
#include "adapters/broker/redis/redis_settings.h"
#include "merlin/core/broker/worker_registry.h"
#include "merlin/core/util/result.h"

namespace merlin {

class RedisWorkerRegistry : public WorkerRegistry {
 public:
  explicit RedisWorkerRegistry(RedisSettings settings);

  /// Records a heartbeat for `w` (stamped with now); returns true if a stop was requested.
  /// One pipelined round trip on a kept connection (not a new connection per beat).
  Result<bool> beat(const WorkerRecord& w) override;
  /// The worker left: its record, its stamp and any stop request go (its consumers, holding
  /// nothing once it drained, are no longer judged by heartbeat).
  Result<void> remove(const std::string& id) override;
  /// Every record; those not seen for `forget_after` are removed instead of listed.
  Result<std::vector<WorkerRecord>> list(std::int64_t forget_after_ms = 600'000) override;
  /// Asks these workers to stop (they drain at their next heartbeat).
  Result<void> request_stop(const std::vector<std::string>& ids) override;

 private:
  RedisSettings settings_;
  RedisPool beats_;  ///< the heartbeat's connection, kept between beats
};

}  // namespace merlin
