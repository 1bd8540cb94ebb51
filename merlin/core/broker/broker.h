#pragma once
/// Where task messages wait: named queues with at-least-once delivery. A reserved message
/// stays owned by the broker until `ack`; `release` hands it back (drain). Implementations:
/// adapters/broker/local (in-process), later Redis and RabbitMQ. Free of any server's shapes.
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/broker/task_message.h"
#include "merlin/core/util/result.h"

namespace merlin {

using Clock = std::chrono::steady_clock;

/// How long a reserved task may go unrenewed before another worker takes it over, unless
/// `run-workers --lease` says otherwise.
inline constexpr std::chrono::milliseconds kDefaultLease{60'000};

/// How often a worker renews the lease of a task it runs: a third of the lease (at least 1 ms),
/// so two renewals may be lost before another worker takes the task over.
constexpr std::chrono::milliseconds lease_renewal_for(std::chrono::milliseconds lease) {
  return lease / 3 > std::chrono::milliseconds(1) ? lease / 3 : std::chrono::milliseconds(1);
}

struct Delivery {
  std::string queue;
  TaskMessage message;
  std::string receipt;  ///< broker-specific handle for ack/release
  /// Delivered before to a worker that did not ack it (it died, or its lease ran out): the
  /// first run may have committed and died before queueing the dependents.
  bool redelivered = false;
  /// How many step-requested stops (MERLIN_HARD_FAIL, MERLIN_STOP_WORKERS) the study's
  /// workers have announced through this broker when this was delivered. A change tells the
  /// worker to look (WorkerOptions::on_stop_notices) before it starts the task. Always 0 for
  /// brokers that carry no such notices (the in-process one: its workers share memory).
  std::uint64_t stop_notices = 0;
  /// How many times this message has been delivered, this time included (1 = first); 0 when
  /// the broker does not count. A message whose workers keep dying on it climbs.
  std::uint32_t deliveries = 0;
  /// For a single-sample message: whether its sample was already committed when it was
  /// delivered (1) or not (0), from a broker that holds the study's progress too and reads it
  /// in the same call as the take (Redis), sparing the worker its done check; -1 when not
  /// known (the worker asks the StateStore).
  std::int8_t sample_done = -1;
};

/// Finishing a leaf task (Broker::finish): commit its sample, publish `follow_ups` if that
/// commit is new, ack the delivery. The follow-ups are the ones that can be decided before the
/// commit (Plan::follow_ups_before_commit). `hold_ack_at_zero`: when the instance's remaining
/// count is 0 after the commit (this one or, for a duplicate, an earlier one), do not ack: the
/// caller then releases the whole dependents (Plan::after_complete: claim_release guards them)
/// and acks, as without finish, so a worker dying in between leaves the message to be
/// redelivered, and a commit resent after its reply was lost still releases them.
struct FinishRequest {
  InstanceId instance;
  SampleId sample = 0;
  Outcome outcome = Outcome::kSuccess;
  double seconds = 0;
  std::vector<std::pair<std::string, std::vector<TaskMessage>>> follow_ups;  ///< by queue
  bool hold_ack_at_zero = false;
};

struct FinishResult {
  CommitResult commit;
  bool acked = false;  ///< false only when the ack was held (see FinishRequest)
  /// Refused: the delivery was no longer this worker's (its lease ran out and another worker
  /// took the task over) and the sample was not committed. Nothing was written or acked; the
  /// other worker's run commits it. Only brokers that can tell say so (Redis).
  bool fenced = false;
};

class Broker {
 public:
  virtual ~Broker() = default;
  /// Appends messages to `queue`. All or nothing.
  virtual Result<void> publish(const std::string& queue, const std::vector<TaskMessage>& msgs) = 0;
  /// Publishes messages that are taken before the queue's other waiting ones: a search's
  /// promotions, as asynchronous successive halving wants (docs/tuning.md). The default,
  /// for brokers with no order to jump (RabbitMQ), is publish(). The in-process broker's
  /// publish already puts new messages first.
  virtual Result<void> publish_first(const std::string& queue,
                                     const std::vector<TaskMessage>& msgs) {
    return publish(queue, msgs);
  }
  /// Makes `msg` deliverable on `queue` at `due` (retries with retry_delay).
  virtual Result<void> publish_at(const std::string& queue, const TaskMessage& msg,
                                  Clock::time_point due) = 0;
  /// Reserves one message from any of `queues`, waiting up to `wait`; nullopt if none came.
  virtual Result<std::optional<Delivery>> reserve(const std::vector<std::string>& queues,
                                                  std::chrono::milliseconds wait) = 0;
  /// The message is done with: forget it.
  virtual Result<void> ack(const Delivery& d) = 0;
  /// Gives the message back to its queue, unexecuted.
  virtual Result<void> release(const Delivery& d) = 0;
  /// Renews the reservation of `d`: a broker with leases (Redis) hands a message reserved
  /// longer than its lease to another worker, so a worker running a long task calls this
  /// well within the lease (say every lease/3). True while `d` is still this worker's; false
  /// once it is not: acked, or taken over by another worker after the lease ran out (the
  /// worker then stops the step and drops the delivery: docs/leases.md). Harmless after
  /// ack. Brokers without leases (local) need nothing: the default answers true.
  virtual Result<bool> extend_lease(const Delivery& d) {
    (void)d;
    return true;
  }
  /// Messages queued or delayed in `queues`, plus every reserved (not yet acked) message:
  /// zero means nothing more can arrive on those queues.
  virtual Result<std::uint64_t> pending(const std::vector<std::string>& queues) = 0;

  /// Reserves up to `n` messages from `queues` in the order `reserve` would give them one by
  /// one, waiting up to `wait` for the first; empty if none came. Each is leased, renewed,
  /// acked and released on its own. The default calls `reserve` once (at most one message);
  /// a broker that can take several in one round trip (Redis) overrides it.
  virtual Result<std::vector<Delivery>> reserve_many(const std::vector<std::string>& queues,
                                                     std::size_t n, std::chrono::milliseconds wait);

  /// Commit + publish + ack of a finished leaf (see FinishRequest), with `store` the study's
  /// progress store. The default does them one after the other: `store.commit`, then
  /// `publish` of the follow-ups if the commit is new, then `ack` (unless held). A broker
  /// whose server also holds the study's progress (Redis) does all three in one atomic call
  /// and tells `store` of a new commit (StateStore::note_commit: the task journal).
  virtual Result<FinishResult> finish(const Delivery& d, const FinishRequest& r, StateStore& store);

  /// One leaf of finish_many: the delivery and its request, both owned by the caller.
  struct Finishing {
    const Delivery* delivery;
    const FinishRequest* request;
  };
  /// Finishes several leaves as `finish` would one after the other, in order: one result per
  /// item. The default calls `finish` for each; a broker that does them in one round trip
  /// (Redis: one script, counters and acks grouped) overrides it and says how many it takes
  /// at once in finish_batch_limit.
  virtual std::vector<Result<FinishResult>> finish_many(const std::vector<Finishing>& items,
                                                        StateStore& store);
  /// How many leaves one finish_many call should carry at most; 1 (the default): the broker
  /// gains nothing from batches, so workers call `finish` from each slot at once.
  virtual std::size_t finish_batch_limit() const { return 1; }
};

}  // namespace merlin
