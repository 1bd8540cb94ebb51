#pragma once
/// The Broker on RabbitMQ, first part (issue #11): durable queues per task queue (declared on
/// first use), persistent publishes confirmed before `publish` returns, `reserve` by basic.get
/// in the queues' order of preference, ack after the commit, `release` as a reject with
/// requeue. A message whose worker's connection dies is redelivered by RabbitMQ, flagged
/// `redelivered`; a receipt names its connection, so an ack after a reconnect is a no-op (the
/// message went back). Text that is no task message is dropped. Not yet: delayed messages (`publish_at` refuses), leases for hung workers,
/// and `pending` counts only ready messages and this handle's own unacked ones (RabbitMQ does
/// not tell a client the unacked messages of others): the Backend that comes next keeps those
/// in the progress store. Thread-safe: one connection under a mutex (rabbitmq-c is not).
#include <chrono>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "adapters/broker/amqp/amqp_connection.h"
#include "merlin/broker/broker.h"

namespace merlin {

class AmqpBroker : public Broker {
 public:
  /// `prefix` names this study's queues ("merlin.<study>." + queue).
  AmqpBroker(AmqpSettings settings, std::string prefix);

  Result<void> publish(const std::string& queue, const std::vector<TaskMessage>& msgs) override;
  Result<void> publish_at(const std::string& queue, const TaskMessage& msg,
                          Clock::time_point due) override;
  Result<std::optional<Delivery>> reserve(const std::vector<std::string>& queues,
                                          std::chrono::milliseconds wait) override;
  Result<void> ack(const Delivery& d) override;
  Result<void> release(const Delivery& d) override;
  Result<std::uint64_t> pending(const std::vector<std::string>& queues) override;

 private:
  Result<AmqpConnection*> connection();  // under mu_
  /// Forgets a failed connection: RabbitMQ requeues what it held unacked.
  void drop();  // under mu_
  /// The delivery tag of a receipt "<generation>:<tag>" when it is of the current connection.
  std::optional<std::uint64_t> tag_of(const std::string& receipt) const;
  Result<void> declared(const std::string& name);  // under mu_
  std::string queue_name(const std::string& queue) const { return prefix_ + queue; }
  /// One task message of `queue`, dropping text that is none; nullopt when it is empty.
  Result<std::optional<Delivery>> take(const std::string& queue);  // under mu_

  AmqpSettings settings_;
  std::string prefix_;
  std::mutex mu_;
  std::unique_ptr<AmqpConnection> conn_;
  std::uint64_t generation_ = 0;  ///< connections opened so far
  std::set<std::string> declared_;
  std::map<std::string, std::uint64_t> unacked_;  ///< per queue, delivered to this handle
};

}  // namespace merlin
