#pragma once
/// The Backend on one Redis server: Streams for the queues (RedisBroker), bitmaps and hashes
/// for progress (RedisStateStore), the study and worker registries and the halts Stream.
#include <memory>

#include "adapters/broker/redis/redis_provider.h"
#include "adapters/broker/redis/redis_settings.h"
#include "adapters/broker/redis/redis_stop_channel.h"
#include "adapters/broker/redis/redis_studies.h"
#include "adapters/broker/redis/redis_workers.h"
#include "merlin/core/broker/backend.h"

namespace merlin {

class RedisBackend : public Backend {
 public:
  /// `settings` name the server and how to reach it; their study key and consumer are set per
  /// handle. `location`: the server as messages show it (masked); "" shows its address.
  explicit RedisBackend(RedisSettings settings, std::string location = "");

  BrokerKind kind() const override { return kRedisKind; }
  std::string location() const override {
    return location_.empty() ? settings_.address() : location_;
  }
  /// A RedisReservations of the study on this server.
  std::unique_ptr<ReservationTable> reservations(const std::string& study) override;

  std::unique_ptr<Broker> broker(const std::string& study_key, const std::string& consumer,
                                 std::chrono::milliseconds lease) override;
  std::unique_ptr<StateStore> store(const std::string& study_key) override;
  StudyRegistry& studies() override { return studies_; }
  WorkerRegistry& workers() override { return workers_; }
  StopChannel& stops() override { return stops_; }
  Result<std::string> server_version() override;

 private:
  RedisSettings settings_;
  std::string location_;
  RedisStudies studies_;
  RedisWorkerRegistry workers_;
  RedisStopChannel stops_;
};

}  // namespace merlin
