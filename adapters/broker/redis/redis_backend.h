#pragma once
/// The Backend on one Redis server: Streams for the queues (RedisBroker), bitmaps and hashes
/// for progress (RedisStateStore), the study and worker registries and the halts Stream.
#include <memory>

#include "adapters/broker/redis/redis_settings.h"
#include "adapters/broker/redis/redis_stop_channel.h"
#include "adapters/broker/redis/redis_studies.h"
#include "adapters/broker/redis/redis_workers.h"
#include "merlin/broker/backend.h"

namespace merlin {

class RedisBackend : public Backend {
 public:
  /// `settings` name the server and how to reach it; their study key and consumer are set per
  /// handle.
  explicit RedisBackend(RedisSettings settings);

  std::string kind() const override { return "redis"; }

  std::unique_ptr<Broker> broker(const std::string& study_key, const std::string& consumer,
                                 std::chrono::milliseconds lease) override;
  std::unique_ptr<StateStore> store(const std::string& study_key) override;
  StudyRegistry& studies() override { return studies_; }
  WorkerRegistry& workers() override { return workers_; }
  StopChannel& stops() override { return stops_; }
  Result<std::string> server_version() override;

 private:
  RedisSettings settings_;
  RedisStudies studies_;
  RedisWorkerRegistry workers_;
  RedisStopChannel stops_;
};

}  // namespace merlin
