#include "adapters/broker/redis/redis_backend.h"

#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_reservations.h"
#include "adapters/broker/redis/redis_state_store.h"

namespace merlin {

RedisBackend::RedisBackend(RedisSettings settings, std::string location)
    : settings_(std::move(settings)),
      location_(std::move(location)),
      studies_(settings_),
      workers_(settings_),
      stops_(settings_) {}

std::unique_ptr<Broker> RedisBackend::broker(const std::string& study_key,
                                             const std::string& consumer,
                                             std::chrono::milliseconds lease) {
  RedisSettings s = settings_;
  s.study_key = study_key;
  s.consumer = consumer;
  s.lease = lease;
  return std::make_unique<RedisBroker>(s);
}

std::unique_ptr<StateStore> RedisBackend::store(const std::string& study_key) {
  RedisSettings s = settings_;
  s.study_key = study_key;
  return std::make_unique<RedisStateStore>(s);
}

std::unique_ptr<ReservationTable> RedisBackend::reservations(const std::string& study) {
  RedisSettings s = settings_;
  s.study_key = study;
  return std::make_unique<RedisReservations>(s);
}

Result<std::string> RedisBackend::server_version() {
  auto v = studies_.server_version();
  if (!v) return v.error();
  return "redis " + *v;
}

}  // namespace merlin
