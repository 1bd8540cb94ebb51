#pragma once
/// The ReservationTable of one study on Redis: the hash "merlin:<study>:held" (id -> deliveries,
/// queue, message), the sorted set "merlin:<study>:held_until" (id -> lease end, the server's
/// epoch ms), the hash "merlin:<study>:held_by" (id -> holder) and the study's queue set
/// "merlin:<study>:queues". A holder whose heartbeat ("merlin:workers:beat", see
/// RedisWorkerRegistry) is older than `settings.dead_after` by the server's clock is dead. Each
/// call is one script or command; `forget` of the study removes them with its other keys.
#include "adapters/broker/redis/redis_pool.h"
#include "adapters/broker/redis/redis_script.h"
#include "adapters/broker/redis/redis_settings.h"
#include "merlin/core/broker/reservations.h"

namespace merlin {

class RedisReservations : public ReservationTable {
 public:
  /// `settings.study_key` names the study.
  explicit RedisReservations(RedisSettings settings);

  Result<std::uint64_t> hold(const std::string& id, const Reservation& r,
                             std::int64_t lease_ms) override;
  Result<bool> renew(const std::string& id, std::int64_t lease_ms) override;
  Result<bool> drop(const std::string& id) override;
  Result<bool> held(const std::string& id) override;
  Result<std::vector<std::pair<std::string, Reservation>>> take_expired(std::int64_t lease_ms,
                                                                        std::size_t max) override;
  Result<std::vector<std::pair<std::string, Reservation>>> all() override;
  Result<std::uint64_t> count() override;
  Result<void> add_queue(const std::string& queue) override;
  Result<std::vector<std::string>> queues() override;
  /// The progress keys are the study's (RedisStateStore's) on the same server: one script.
  bool commits_progress() const override { return true; }
  Result<std::optional<HeldCommit>> commit_held(const std::string& id, InstanceId instance,
                                                SampleId sample, Outcome outcome,
                                                double seconds, bool end,
                                                bool keep_at_zero) override;

 private:
  RedisPool pool_;
  RedisKeys keys_;
  RedisScript hold_, renew_, take_expired_, commit_held_;
};

}  // namespace merlin
