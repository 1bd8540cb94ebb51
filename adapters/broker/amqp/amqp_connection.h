#pragma once
/// One AMQP 0-9-1 connection to RabbitMQ with one channel in publisher-confirm mode: durable
/// queues, persistent messages whose publish returns only once the broker confirmed them,
/// basic.get or basic.consume with manual acks. rabbitmq-c stays inside this folder (the
/// header names none of its types). amqps:// through rabbitmq-c's OpenSSL socket. Not thread-safe: one per thread, as
/// hiredis connections are.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/broker/broker_location.h"
#include "merlin/core/util/result.h"

namespace merlin {

struct AmqpSettings {
  std::string host = "127.0.0.1";
  int port = 5672;
  std::string username = "guest", password = "guest";
  std::string vhost = "/";
  /// Connecting, logging in, and each reply (confirms, declares, gets) may take this long.
  std::chrono::milliseconds timeout = kDefaultReplyTimeout;
  /// Seconds between heartbeats both ways (0: none); a silent peer is dropped after two, and
  /// what RabbitMQ pushed to it unacked goes back to its queue (a worker cut off while it
  /// waited for work). rabbitmq-c sends them only while it is called: a worker whose slots all
  /// run tasks calls `keep_alive` with its lease renewals; a connection dropped meanwhile is
  /// found at the next call and opened again (AmqpSession).
  int heartbeat_seconds = 60;
  /// amqps: TLS, the server's certificate checked against `ca_certs` (the system's CAs when
  /// empty) and its host name, unless `verify` is off (Merlin's cert_reqs: none).
  bool tls = false;
  bool verify = true;
  std::string ca_certs, certfile, keyfile;
};

/// How a message is published: integer headers (AmqpMessage::headers reads them back) and a
/// per-message time to live (ms), after which a queue with a dead-letter route moves it on.
struct AmqpPublishOptions {
  std::map<std::string, std::int64_t> headers;
  std::optional<std::int64_t> expiration_ms;
  /// Per body, its priority (a queue declared with max_priority serves higher first); empty:
  /// none.
  std::vector<std::uint8_t> priorities;
};

/// A message taken with `get` or delivered to a consumer (`next`): its body, the tag to ack or
/// reject it with, whether the broker delivered it before, its headers as text (quorum queues
/// count deliveries in "x-delivery-count"), and for a delivery the queue it came from.
struct AmqpMessage {
  std::string body;
  std::uint64_t tag = 0;
  bool redelivered = false;
  std::map<std::string, std::string> headers;
  std::string queue;
};

/// Queue arguments: a quorum queue (replicated, counts deliveries) or a classic one; the
/// consumer timeout (ms) after which RabbitMQ closes the channel of a consumer that holds an
/// unacked message.
struct AmqpQueueOptions {
  bool quorum = false;
  std::optional<std::int64_t> consumer_timeout_ms;
  /// Messages that expire here go to this queue (through the default exchange): a delay queue.
  std::string dead_letter_to;
  /// x-max-priority: a classic queue that delivers higher-priority messages first (0: FIFO).
  int max_priority = 0;
};

class AmqpConnection {
 public:
  /// Connects, logs in, opens channel 1 and turns on publisher confirms. Errors name the
  /// address (`amqp://user@host:port/vhost`) and the broker's own words: kUnavailable when it
  /// cannot be reached, kRuntime when it refuses (a wrong password).
  static Result<std::unique_ptr<AmqpConnection>> open(const AmqpSettings& settings);
  ~AmqpConnection();
  AmqpConnection(const AmqpConnection&) = delete;
  AmqpConnection& operator=(const AmqpConnection&) = delete;

  /// Declares a durable queue (idempotent with the same options); returns its ready messages.
  Result<std::uint64_t> declare_queue(const std::string& queue,
                                      const AmqpQueueOptions& options = {});
  /// Publishes persistent messages to `queue` (through the default exchange, mandatory) and
  /// waits until the broker confirmed every one; an unroutable or nacked message is an error.
  Result<void> publish(const std::string& queue, const std::vector<std::string>& bodies,
                       const AmqpPublishOptions& options = {});
  /// Takes one message from `queue` (basic.get, manual ack); nullopt when it is empty.
  Result<std::optional<AmqpMessage>> get(const std::string& queue);
  /// At most `n` messages delivered to this channel's consumers and not yet acked, all of
  /// them together (basic.qos, global; sent only when `n` differs from the last): the limit
  /// of the consumers made after it.
  Result<void> prefetch(std::uint16_t n);
  /// Subscribes to `queue` (basic.consume, manual acks; nothing if it is already): the broker
  /// pushes its messages, to be read with `next`.
  Result<void> consume(const std::string& queue);
  /// Ends the subscription to `queue` (nothing if there is none). What was pushed before the
  /// broker confirmed is still read with `next`, and must be acked or rejected.
  Result<void> cancel(const std::string& queue);
  /// The next message pushed to this connection's consumers: one read already (while a
  /// publish waited for its confirms), else one read from the socket within `timeout` (0:
  /// only what has arrived). nullopt when none came. Heartbeats are sent while it reads.
  Result<std::optional<AmqpMessage>> next(std::chrono::milliseconds timeout);
  /// Reads what arrived (kept for `next`) and sends a heartbeat when one is due, without
  /// waiting.
  Result<void> keep_alive();
  /// Whether `next` would return at once without the socket: a message or frame read already.
  bool has_pending_frames() const;
  /// The socket, for waiting until it is readable without holding the connection (poll(2)).
  int socket_fd() const;
  Result<void> ack(std::uint64_t tag);
  /// Gives a message back: to its queue (`requeue`), else it is dropped (or dead-lettered).
  Result<void> reject(std::uint64_t tag, bool requeue);
  /// Messages ready in `queue` (not those delivered and unacked).
  Result<std::uint64_t> ready(const std::string& queue);
  /// Consumers subscribed to `queue`.
  Result<std::uint32_t> consumers(const std::string& queue);
  /// Removes the ready messages of `queue`; returns how many.
  Result<std::uint64_t> purge(const std::string& queue);
  /// Deletes `queue` (and its messages, ready or not).
  Result<void> delete_queue(const std::string& queue);

  /// "amqp://guest@127.0.0.1:5672/" (never the password).
  std::string describe() const;
  /// "RabbitMQ 3.10.8": the server's product and version as it announced them.
  std::string server_version() const;

 private:
  struct State;
  explicit AmqpConnection(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace merlin
