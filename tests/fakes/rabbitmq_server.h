#pragma once
/// A real, private rabbitmq-server for tests: its own node name, AMQP, distribution and epmd
/// ports on loopback, and its own temp dir for the database, logs and config; started as its
/// own session so it never holds the test's output open. About 4 s to start. `restart` brings
/// it back with the same ports and database (durable queues survive). Readiness is a raw AMQP
/// protocol header answered with Connection.Start: no client library needed.
#include <sys/types.h>

#include <string>

namespace merlin::testing {

class RabbitServer {
 public:
  RabbitServer() = default;
  ~RabbitServer();
  RabbitServer(const RabbitServer&) = delete;
  RabbitServer& operator=(const RabbitServer&) = delete;

  /// RabbitMQ's server script (the one that runs as the caller, not the Debian wrapper that
  /// switches to the rabbitmq user), or "" (tests skip with `kMissingReason`).
  static std::string find_binary();
  static constexpr const char* kMissingReason =
      "rabbitmq-server not found: apt-get install rabbitmq-server (containers/install-deps.sh)";

  /// Starts on fresh ports; "" on success, else what went wrong (with the log's tail).
  std::string start();
  /// SIGTERM (RabbitMQ shuts down cleanly, durable messages are on disk) and wait; `hard`:
  /// SIGKILL to the whole node.
  void stop(bool hard = false);
  /// Stops and starts again with the same ports and database; "" on success.
  std::string restart(bool hard = false);

  int port() const { return port_; }
  /// amqp://guest:guest@127.0.0.1:<port>/
  std::string url() const;
  const std::string& dir() const { return dir_; }
  bool running() const { return pid_ > 0; }

 private:
  std::string launch();
  bool wait_ready(int timeout_ms);

  std::string binary_, dir_, node_;
  int port_ = 0, dist_port_ = 0, epmd_port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace merlin::testing
