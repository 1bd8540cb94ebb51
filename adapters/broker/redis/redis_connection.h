#pragma once
/// One connection to Redis (RAII over hiredis' redisContext, which stays inside the .cc).
/// AUTHs and SELECTs on every (re)connect. When a command fails for want of the server (the
/// connection broke or was refused, or no reply came within `command_timeout`), it is sent
/// again on a new connection, with exponential backoff (50 ms doubling to 1 s), until it gets
/// a reply or `reconnect_budget` has passed since the first failure; then it fails with
/// kUnavailable: "redis 127.0.0.1:6399: connection refused; gave up after retrying for 30.0 s
/// (the broker retry budget is 30.0 s)". A server still loading its AOF after a restart
/// (LOADING) is waited for within the same budget.
///
/// So a command may run more than once: a timed-out one may have run, or still run when a
/// paused server wakes up and reads it. Every caller in this folder is idempotent (Lua
/// scripts that check before they write: commit, enqueue, publish_at, dead-letter, release;
/// HSET/HSETNX/SADD/XACK/XCLAIM) or at-least-once by design: a published message may be
/// queued twice (the worker skips a committed sample, so at worst a step runs twice), and a
/// take whose reply was lost leaves the message reserved for us until its lease runs out and
/// another take claims it.
///
/// Over TLS (`settings.tls`, rediss://) the socket and the TLS session are a TlsStream and
/// hiredis only encodes commands and decodes replies (redisFormatCommandArgv, a redisReader);
/// the retries, timeouts and AUTH/SELECT are the same. A certificate refused (by either side),
/// a peer that does not speak TLS or an unusable CA/certificate/key file is not retried: no
/// retry mends it (docs/tls.md).
///
/// Not thread-safe: one thread at a time (RedisPool hands connections out).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "adapters/broker/redis/redis_error.h"
#include "adapters/broker/redis/redis_reply.h"
#include "adapters/broker/redis/redis_settings.h"
#include "adapters/broker/redis/tls_stream.h"
#include "merlin/core/util/result.h"

struct redisContext;  // hiredis, defined in redis_connection.cc only
struct redisReader;

namespace merlin {

using RedisCommand = std::vector<std::string>;

class RedisConnection {
 public:
  /// Connects. Without `retry_first_connect` there is no retry: a wrong address fails fast
  /// (kUnavailable); with it, the connect is retried within `reconnect_budget` as commands are.
  static Result<std::unique_ptr<RedisConnection>> open(const RedisSettings& settings);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  /// Runs one command. An error reply becomes an Error (kRuntime) carrying the server's text
  /// ("NOSCRIPT ...", "NOGROUP ..."), with the reply's code in `redis_code()`; a broken
  /// connection is retried as described above.
  /// `extra` lengthens the socket timeout (blocking reads).
  RedisResult<RedisReply> command(const RedisCommand& argv,
                                  std::chrono::milliseconds extra = std::chrono::milliseconds(0));
  /// Sends `cmds` in one round trip; error replies stay in the returned values.
  RedisResult<std::vector<RedisReply>> pipeline(const std::vector<RedisCommand>& cmds);
  /// MULTI cmds EXEC: applied all together or (connection lost before EXEC) not at all.
  /// Returns EXEC's replies; an error reply inside them fails the call (with its code).
  RedisResult<std::vector<RedisReply>> transaction(const std::vector<RedisCommand>& cmds);

  const std::string& address() const { return address_; }
  /// "redis <address>: <what>"
  std::string describe(const std::string& what) const;

 private:
  explicit RedisConnection(const RedisSettings& settings);
  RedisResult<void> connect_once();
  /// Sends on the connection, connecting first if there is none (one attempt).
  RedisResult<std::vector<RedisReply>> send_connected(const std::vector<RedisCommand>& cmds,
                                                      std::chrono::milliseconds extra);
  Result<std::vector<RedisReply>> send(const std::vector<RedisCommand>& cmds,
                                       std::chrono::milliseconds extra);
  RedisResult<void> connect_tls();
  /// AUTH and SELECT on a new connection.
  RedisResult<void> log_in();
  Result<std::vector<RedisReply>> send_tls(const std::vector<RedisCommand>& cmds,
                                           std::chrono::milliseconds extra);
  void drop_tls();
  /// Runs `attempt` until it succeeds with a result `busy` (LOADING) does not reject, fails
  /// otherwise than for want of the server, or the retry budget is spent.
  template <typename T, typename Attempt, typename Busy>
  RedisResult<T> retrying(Attempt attempt, Busy busy);

  RedisSettings settings_;
  std::string address_;
  redisContext* ctx_ = nullptr;  ///< owned
  std::unique_ptr<TlsStream> tls_;  ///< rediss://: the connection, when there is one
  redisReader* reader_ = nullptr;   ///< owned; decodes tls_'s replies
  bool answered_ = false;           ///< the plain connection has had a reply
};

}  // namespace merlin
