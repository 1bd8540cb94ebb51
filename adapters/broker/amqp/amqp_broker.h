#pragma once
/// The Broker on RabbitMQ, with reservations kept beside the study's progress
/// (merlin/core/broker/reservations.h, on the results backend). Per task queue a durable queue
/// "merlin.<study>.q.<queue>", declared on first use; persistent publishes confirmed before
/// `publish` returns. `reserve` takes ready messages by basic.get, in the queues' order of
/// preference; when there are none it subscribes to the queues (basic.consume, at most as many
/// pushed as it asked for: the reserving worker's free slots) and waits for RabbitMQ to push
/// one, then ends the subscription, so that no message waits in a worker that is not asking
/// (workers neither poll nor hoard). Each message taken is recorded as a reservation (queue,
/// message, deliveries, lease) and only then acked to RabbitMQ: from there the reservation is
/// the task's copy, so no message is held unacked while a task runs (RabbitMQ's 30-minute
/// delivery timeout and heartbeats never touch a long task). A worker that dies between the
/// get and the record leaves the message unacked on a closed connection: RabbitMQ queues it
/// again. A reservation not renewed within its lease (its worker died, or hangs) is taken over
/// by the next reserving worker, which publishes the message again flagged redelivered, its
/// delivery count carried in a header.
/// `ack` and `release` end the reservation (release queues the message again first); both
/// are no-ops once it was taken over.
///
/// Delays: per task queue a delay queue "merlin.<study>.d.<queue>" whose messages carry their
/// own time to live and dead-letter into the task queue when it runs out. RabbitMQ expires
/// messages at the head of a queue only, so a delayed message waits at most for those queued
/// before it in the same delay queue (retry_delay is one value per step: they come due in
/// order).
///
/// `pending` is ready messages in the named queues and their delay queues plus every
/// reservation of the study. A message between another worker's get and its record (two round
/// trips) is in neither: a zero may be early by that much (a worker leaves while another
/// still works; `find_lost_studies` reads a zero twice before it calls work lost). A
/// connection that fails is dropped and the call tried once more on a new one, opened with
/// backoff within the retry budget. Thread-safe: one connection under a mutex (rabbitmq-c is
/// not thread-safe); a reserve waits for its socket without holding it, so that publishes go
/// on meanwhile.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "adapters/broker/amqp/amqp_session.h"
#include "merlin/core/broker/broker.h"
#include "merlin/core/broker/reservations.h"

namespace merlin {

struct AmqpBrokerOptions {
  std::string study_key;
  std::string consumer = "worker";  ///< names the reservations of this handle
  std::chrono::milliseconds lease = kDefaultLease;
  /// How long a lost server is retried (connecting with backoff) before a call fails.
  std::chrono::milliseconds retry_budget{30'000};
};

class AmqpBroker : public Broker {
 public:
  AmqpBroker(AmqpSettings settings, AmqpBrokerOptions options,
             std::unique_ptr<ReservationTable> held);
  ~AmqpBroker() override;
  AmqpBroker(const AmqpBroker&) = delete;
  AmqpBroker& operator=(const AmqpBroker&) = delete;

  Result<void> publish(const std::string& queue, const std::vector<TaskMessage>& msgs) override;
  Result<void> publish_at(const std::string& queue, const TaskMessage& msg,
                          Clock::time_point due) override;
  Result<std::optional<Delivery>> reserve(const std::vector<std::string>& queues,
                                          std::chrono::milliseconds wait) override;
  /// Up to `n` tasks, waiting up to `wait` for the first.
  Result<std::vector<Delivery>> reserve_many(const std::vector<std::string>& queues,
                                             std::size_t n,
                                             std::chrono::milliseconds wait) override;
  Result<void> ack(const Delivery& d) override;
  Result<void> release(const Delivery& d) override;
  Result<bool> extend_lease(const Delivery& d) override;
  /// As Broker::finish, with the commit made by the reservation table when it keeps the
  /// study's progress (ReservationTable::commit_held): a reservation taken over is fenced
  /// there, in the same script as the commit.
  Result<FinishResult> finish(const Delivery& d, const FinishRequest& r,
                              StateStore& store) override;
  Result<std::uint64_t> pending(const std::vector<std::string>& queues) override;

  /// Publishes text as it is, ahead of every task (tests put garbage on a queue with it).
  Result<void> publish_raw(const std::string& queue, const std::string& text);
  /// Declares `queues` and records them in the study's queue set, before any message.
  Result<void> prepare(const std::vector<std::string>& queues);

  struct Depth {
    std::uint64_t ready = 0, delayed = 0;
  };
  /// Declares study `study`'s task queue `queue` and its delay queue (idempotent); their ready
  /// messages.
  static Result<Depth> declare_pair(AmqpConnection& c, const std::string& study,
                                    const std::string& queue);
  /// Ready and delayed messages of study `study`'s `queues`, plus all its reservations.
  static Result<std::uint64_t> count_pending(AmqpSession& session, const std::string& study,
                                             const std::vector<std::string>& queues,
                                             ReservationTable& held);

 private:
  /// Declares task queue `queue` (and its delay queue) once per connection.
  Result<void> declare(AmqpConnection& c, std::uint64_t generation,
                       const std::string& queue);  // inside session_.run
  /// Adds `queue` to the study's queue set, once per handle.
  Result<void> record(const std::string& queue);
  Result<void> send(const std::string& queue, const std::vector<std::string>& bodies,
                    const AmqpPublishOptions& options);
  /// Queues again the reservations whose lease ran out, at most every lease/4.
  Result<void> take_over_expired();
  /// One step of reserve_many (inside session_.run): messages got or pushed, up to `n`, in
  /// `picked` (queue, message), the rest rejected back to their queues; the subscription made
  /// when there are none and `subscribe`, ended when there are some or not `subscribe`.
  struct Waiting {
    std::uint64_t on = 0;  ///< the generation subscribed on (0: none)
    int fd = -1;           ///< the socket to wait on
  };
  Result<void> gather(AmqpConnection& c, std::uint64_t generation,
                      const std::vector<std::string>& queues, std::size_t n, bool subscribe,
                      Waiting& w, std::vector<std::pair<std::string, AmqpMessage>>& picked);
  /// Message `m` of `queue`, got on connection `generation`, recorded as a reservation and
  /// acked; nullopt when it is no task message (dropped).
  Result<std::optional<Delivery>> take(const std::string& queue, const AmqpMessage& m,
                                       std::uint64_t generation);
  /// Waits up to `for_` for `fd` or the wake-up to be readable.
  void wait_readable(int fd, std::chrono::milliseconds for_);
  /// Wakes a reserve waiting on the socket: another call read deliveries meanwhile.
  void wake();

  AmqpBrokerOptions options_;
  AmqpSession session_;
  std::unique_ptr<ReservationTable> held_;
  std::string id_prefix_;  ///< "<consumer>.<random>.": reservation ids of this handle
  std::atomic<std::uint64_t> seq_{0};
  std::mutex mu_;                  ///< guards what follows
  std::uint64_t declared_on_ = 0;  ///< the connection generation `declared_` is of
  std::set<std::string> declared_;
  std::set<std::string> recorded_;  ///< queues added to the study's queue set
  Clock::time_point last_takeover_{};
  int wake_fd_ = -1;  ///< an eventfd: `wake` writes it
};

}  // namespace merlin
