#pragma once
/// Reserved tasks kept beside a study's progress, for brokers that cannot tell who holds what
/// (RabbitMQ tells a client neither the unacked messages of others nor how long they are held):
/// the broker acks a message as soon as its reservation is recorded here, and this table is
/// then the task's only copy until the worker acks it. A reservation not renewed within its
/// lease is taken over by the next reserving worker, which queues the message again. Times are
/// the server's (the hosts' clocks may differ). Thread-safe. Implemented on Redis
/// (adapters/broker/redis/redis_reservations.h).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/util/result.h"

namespace merlin {

struct Reservation {
  std::string queue;
  std::string message;          ///< the encoded task message
  std::uint32_t deliveries = 1;  ///< times delivered, this one included
  /// The consumer (worker id) holding it: when that worker's heartbeat is older than the
  /// table's dead-after time, its reservations are taken over whatever their lease. "": only
  /// the lease counts. Recorded by `hold`, not returned by the table.
  std::string holder;
};

class ReservationTable {
 public:
  virtual ~ReservationTable() = default;
  /// Records reservation `id` for `lease_ms`; returns the study's count of step-requested stops
  /// (Delivery::stop_notices), read in the same round trip.
  virtual Result<std::uint64_t> hold(const std::string& id, const Reservation& r,
                                     std::int64_t lease_ms) = 0;
  /// Extends `id` to `lease_ms` from now; false when it is not held (acked, or taken over).
  virtual Result<bool> renew(const std::string& id, std::int64_t lease_ms) = 0;
  /// Forgets `id`; false when it was not held.
  virtual Result<bool> drop(const std::string& id) = 0;
  virtual Result<bool> held(const std::string& id) = 0;
  /// Up to `max` reservations whose lease ran out or whose holder is dead (see
  /// Reservation::holder), each extended by `lease_ms` so that no other caller takes it too:
  /// the caller queues each again, then drops it.
  virtual Result<std::vector<std::pair<std::string, Reservation>>> take_expired(
      std::int64_t lease_ms, std::size_t max) = 0;
  /// Every reservation, expired or not.
  virtual Result<std::vector<std::pair<std::string, Reservation>>> all() = 0;
  virtual Result<std::uint64_t> count() = 0;
  /// Whether commit_held works: the table lives beside the study's progress (Redis).
  virtual bool commits_progress() const { return false; }
  /// What commit_held did: the commit, and whether it ended the reservation.
  struct HeldCommit {
    CommitResult commit;
    bool ended = false;
  };
  /// Commits `sample` of `instance` as StateStore::commit does, in one step with the check
  /// that reservation `id` is still held (fencing: docs/distributed.md). None, and nothing
  /// written, when it is not held and the sample is not committed: the task was taken over,
  /// and its new holder commits it. A sample committed already is a duplicate, answered as
  /// StateStore::commit answers it. With `end` (the caller publishes nothing after the
  /// commit) the reservation ends in the same step, as `drop` would, unless `keep_at_zero`
  /// and the instance's remaining count is then 0 (Broker::finish's held ack). Only when
  /// commits_progress(); never for a tuned instance.
  virtual Result<std::optional<HeldCommit>> commit_held(const std::string& id,
                                                        InstanceId instance, SampleId sample,
                                                        Outcome outcome, double seconds,
                                                        bool end, bool keep_at_zero) {
    (void)id, (void)instance, (void)sample, (void)outcome, (void)seconds, (void)end,
        (void)keep_at_zero;
    return Error::runtime("this reservation table does not keep the study's progress");
  }
  /// The study's queue names, as the broker declares them (purge and forget find them here).
  virtual Result<void> add_queue(const std::string& queue) = 0;
  virtual Result<std::vector<std::string>> queues() = 0;
};

}  // namespace merlin
