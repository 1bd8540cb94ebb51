#pragma once
/// A real, private redis-server for tests: a free loopback port, its own temp dir, AOF on
/// (appendfsync everysec, no RDB), started as its own session so it never holds the test's
/// output open. `restart` brings it back on the same port and dir (AOF durability tests).
/// Needs no hiredis: readiness is a raw PING.
#include <sys/types.h>
#include <string>

namespace merlin::testing {

class RedisServer {
 public:
  RedisServer() = default;
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  /// The redis-server binary on PATH, or "" (tests skip with `kMissingReason`).
  static std::string find_binary();
  static constexpr const char* kMissingReason =
      "redis-server not found: apt-get install redis-server";

  /// Starts on a fresh port (retried on a port clash); "" on success, else what went wrong.
  std::string start();
  /// SIGTERM and wait (Redis flushes the AOF on a clean shutdown); `hard` uses SIGKILL.
  void stop(bool hard = false);
  /// SIGSTOP: the server keeps its sockets (connects still succeed, the kernel accepts them)
  /// but answers nothing until `resume` (SIGCONT), as a server swapping or frozen would.
  void pause();
  void resume();
  /// Stops and starts again on the same port and dir; "" on success.
  std::string restart(bool hard = false);

  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  bool running() const { return pid_ > 0; }

 private:
  std::string launch();
  bool wait_ready(int timeout_ms);

  std::string binary_, dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace merlin::testing
