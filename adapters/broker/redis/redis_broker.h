#pragma once
/// The Broker on Redis Streams: a few Streams per queue, by message width (single samples in
/// "merlin:<study>:q:<queue>", ranges in "merlin:<study>:w:<b>:<queue>"; see redis_lua.h),
/// read single samples first, then narrowest ranges (depth-first splitting), through one
/// consumer group ("workers") each, so a reserved message stays in the group's pending list
/// until `ack` (XACK + XDEL: the Stream holds only queued and in-flight messages, and Redis
/// memory stays O(in flight)). Every scan interval (a quarter of the lease or of the
/// dead-after time, whichever is shorter) a reserve first queues again, in one pass, every
/// message of its queues idle longer than the lease or held by a dead consumer (heartbeat
/// older than `dead_after`, see redis_lua.h kReclaim): a killed worker's tasks run again
/// elsewhere, all at once; a running task keeps its lease with `extend_lease`. Delayed messages
/// wait in one sorted set by due time (epoch ms, this host's system clock) and any reserve moves
/// the due ones to their Streams. Messages that do not decode go to the Stream
/// "merlin:<study>:dead" and are acked.
///
/// Ordering: single samples before ranges, narrow ranges before wide ones, FIFO within one
/// width; a released message joins the back. Thread-safe: each call borrows a pooled
/// connection.
#include <atomic>
#include <chrono>
#include <memory>

#include "adapters/broker/redis/redis_pool.h"
#include "adapters/broker/redis/redis_script.h"
#include "merlin/core/broker/broker.h"

namespace merlin {

class RedisBroker : public Broker {
 public:
  explicit RedisBroker(RedisSettings settings);

  /// Appends `msgs` in one MULTI/EXEC: all or nothing.
  Result<void> publish(const std::string& queue, const std::vector<TaskMessage>& msgs) override;
  /// Into the queue's bucket kFirstBucket, which every take reads before the others.
  Result<void> publish_first(const std::string& queue,
                             const std::vector<TaskMessage>& msgs) override;
  Result<void> publish_at(const std::string& queue, const TaskMessage& msg,
                          Clock::time_point due) override;
  /// Queues again the messages of dead consumers and expired leases when a scan is due, then
  /// takes a message, queues in the order given. Waits in XREADGROUP BLOCK, no longer than
  /// until the next delayed message is due or the next scan.
  Result<std::optional<Delivery>> reserve(const std::vector<std::string>& queues,
                                          std::chrono::milliseconds wait) override;
  /// Up to `n` messages in one take script: the take order of `reserve`, each leased alone.
  Result<std::vector<Delivery>> reserve_many(const std::vector<std::string>& queues, std::size_t n,
                                             std::chrono::milliseconds wait) override;
  /// XACK + XDEL in one script.
  Result<void> ack(const Delivery& d) override;
  /// Re-appends the message and acks the old entry, atomically; a no-op once acked.
  Result<void> release(const Delivery& d) override;
  /// XCLAIM ... JUSTID by this consumer: resets the message's idle time.
  Result<bool> extend_lease(const Delivery& d) override;
  /// Queued + in-flight + delayed messages of `queues`, plus in-flight messages of every other
  /// queue of the study (they may still publish into `queues`), in one script.
  Result<std::uint64_t> pending(const std::vector<std::string>& queues) override;

  /// Commit + follow-ups + ack in one script (kFinish) on the study's progress keys, which live
  /// on this server under the same study prefix (RedisBackend's store); a new commit is told
  /// to `store` (note_commit: the task journal).
  Result<FinishResult> finish(const Delivery& d, const FinishRequest& r,
                              StateStore& store) override;
  /// Several leaves in one kFinish call: one SETBIT per leaf, the counters once per instance
  /// and the acks once per Stream. An error of the call is every item's.
  std::vector<Result<FinishResult>> finish_many(const std::vector<Finishing>& items,
                                                StateStore& store) override;
  /// Worker slots finishing together share a call, up to this many leaves.
  std::size_t finish_batch_limit() const override { return kFinishBatch; }
  static constexpr std::size_t kFinishBatch = 64;

  const RedisSettings& settings() const { return pool_.settings(); }

 private:
  Result<void> publish_to(const std::string& queue, const std::vector<TaskMessage>& msgs,
                          bool first);
  struct Taken {
    std::string queue, id, text;
    bool redelivered = false;        ///< taken over from an expired lease
    std::string stream;              ///< the Stream key it came from (one of the queue's, by width)
    std::uint64_t stop_notices = 0;  ///< length of the study's halts Stream
    std::uint32_t deliveries = 1;    ///< times delivered, this one included
    int sample_done = -1;            ///< a single sample's done bit at the take; -1 unknown
  };
  /// Runs kReclaim until it has moved everything due (bounded calls); how many it moved.
  Result<std::uint64_t> reclaim(RedisConnection& c, const std::vector<std::string>& queues);
  /// How often reserves scan for dead consumers and expired leases.
  std::chrono::milliseconds scan_every() const;
  /// Up to `n` messages in one take script; empty and `next_due_ms` set when there is none.
  Result<std::vector<Taken>> take_now(RedisConnection& c, const std::vector<std::string>& queues,
                                      std::size_t n, std::int64_t* next_due_ms);
  Result<std::optional<Taken>> take_blocking(RedisConnection& c,
                                             const std::vector<std::string>& queues,
                                             std::chrono::milliseconds block);
  Result<void> dead_letter(RedisConnection& c, const Taken& t);
  std::string unique_tag();

  RedisPool pool_;
  RedisKeys keys_;
  RedisScript take_script_, reclaim_script_, release_script_, pending_script_, publish_script_,
      streams_script_, publish_at_script_, dead_letter_script_, finish_script_, finish_many_script_,
      ack_script_;
  std::uint64_t nonce_;
  std::atomic<std::uint64_t> seq_{0};
  std::atomic<std::int64_t> last_claim_ms_{0};  ///< system ms of the last reclaim scan
};

}  // namespace merlin
