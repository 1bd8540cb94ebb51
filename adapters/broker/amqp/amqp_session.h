#pragma once
/// A connection that comes back: `run` opens it when there is none (retrying an unreachable
/// server with backoff, 50 ms doubling to 1 s, within the retry budget), runs the operation,
/// and after a failure drops the connection (a failed channel is not reused; RabbitMQ queues
/// again what it held unacked) and, if the connection was an old one the server may have
/// closed while it sat idle, runs the operation once more on a new one. Thread-safe: one
/// operation at a time.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "adapters/broker/amqp/amqp_connection.h"

namespace merlin {

class AmqpSession {
 public:
  AmqpSession(AmqpSettings settings, std::chrono::milliseconds retry_budget)
      : settings_(std::move(settings)), retry_budget_(retry_budget) {}

  /// `op` gets the connection and its generation (how many were opened before it, plus one):
  /// a delivery tag is valid on the connection of its generation only.
  using Op = std::function<Result<void>(AmqpConnection&, std::uint64_t generation)>;
  Result<void> run(const Op& op);

  /// Runs `op` only if the connection of `generation` is still the open one; true if it ran.
  Result<bool> run_on(std::uint64_t generation, const std::function<Result<void>(AmqpConnection&)>& op);

  /// Heartbeats of the open connection, if there is one (none is opened for it): see
  /// AmqpConnection::keep_alive. A connection that fails is dropped. True when it read
  /// something that waits to be taken (AmqpConnection::has_pending_frames).
  bool keep_alive();

  const AmqpSettings& settings() const { return settings_; }

 private:
  Result<void> connect();  // under mu_

  AmqpSettings settings_;
  std::chrono::milliseconds retry_budget_;
  std::mutex mu_;
  std::unique_ptr<AmqpConnection> conn_;
  std::uint64_t generation_ = 0;
};

}  // namespace merlin
