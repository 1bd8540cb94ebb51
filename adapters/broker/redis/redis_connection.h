#pragma once
/// One connection to Redis (RAII over hiredis' redisContext, which stays inside the .cc).
/// AUTHs and SELECTs on every (re)connect. When the connection breaks, the next command
/// reconnects with bounded exponential backoff and is sent once more, so a command may reach
/// the server twice: every caller in this folder is idempotent or at-least-once by design. A
/// server still loading its AOF after a restart (LOADING) is waited for within the same budget.
/// Errors name the server: "redis 127.0.0.1:6399: connection refused". Not thread-safe: one
/// thread at a time (RedisPool hands connections out).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "adapters/broker/redis/redis_reply.h"
#include "adapters/broker/redis/redis_settings.h"
#include "merlin/util/result.h"

struct redisContext;  // hiredis, defined in redis_connection.cc only

namespace merlin {

using RedisCommand = std::vector<std::string>;

class RedisConnection {
 public:
  /// Connects (no retry: a wrong address fails fast, kUnavailable).
  static Result<std::unique_ptr<RedisConnection>> open(const RedisSettings& settings);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  /// Runs one command. An error reply becomes an Error (kRuntime) carrying the server's text
  /// ("NOSCRIPT ...", "NOGROUP ..."); a broken connection is retried as described above.
  /// `extra` lengthens the socket timeout (blocking reads).
  Result<RedisReply> command(const RedisCommand& argv,
                             std::chrono::milliseconds extra = std::chrono::milliseconds(0));
  /// Sends `cmds` in one round trip; error replies stay in the returned values.
  Result<std::vector<RedisReply>> pipeline(const std::vector<RedisCommand>& cmds);
  /// MULTI cmds EXEC: applied all together or (connection lost before EXEC) not at all.
  /// Returns EXEC's replies; an error reply inside them fails the call.
  Result<std::vector<RedisReply>> transaction(const std::vector<RedisCommand>& cmds);

  const std::string& address() const { return address_; }
  /// "redis <address>: <what>"
  std::string describe(const std::string& what) const;

 private:
  explicit RedisConnection(const RedisSettings& settings);
  Result<void> connect_once();
  Result<RedisReply> command_once(const RedisCommand& argv, std::chrono::milliseconds extra);
  Result<std::vector<RedisReply>> pipeline_once(const std::vector<RedisCommand>& cmds);
  Result<void> reconnect();
  Result<std::vector<RedisReply>> send(const std::vector<RedisCommand>& cmds,
                                       std::chrono::milliseconds extra);

  RedisSettings settings_;
  std::string address_;
  redisContext* ctx_ = nullptr;  ///< owned
};

}  // namespace merlin
