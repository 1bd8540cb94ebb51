#pragma once
/// A Lua script run by EVALSHA: loaded once (SCRIPT LOAD), and sent whole with EVAL when the
/// server answers NOSCRIPT (it restarted or flushed its script cache). Thread-safe.
#include <mutex>
#include <string>

#include "adapters/broker/redis/redis_connection.h"

namespace merlin {

class RedisScript {
 public:
  explicit RedisScript(std::string source) : source_(std::move(source)) {}

  /// Runs the script with `keys` and `args` on `c`; an error reply becomes an Error, with the
  /// reply's code in `redis_code()` (a script's own: `redis.error_reply("EXISTS ...")`).
  RedisResult<RedisReply> run(RedisConnection& c, const std::vector<std::string>& keys,
                              const std::vector<std::string>& args);

 private:
  std::string source_;
  std::mutex mu_;
  std::string sha_;
};

}  // namespace merlin
