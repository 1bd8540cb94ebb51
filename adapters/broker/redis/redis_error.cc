#include "adapters/broker/redis/redis_error.h"

namespace merlin {

RedisErrorCode redis_error_code_of(std::string_view error_text) {
  const std::string_view word = error_text.substr(0, error_text.find(' '));
  if (word == "LOADING") return RedisErrorCode::kLoading;
  if (word == "NOSCRIPT") return RedisErrorCode::kNoScript;
  if (word == "NOGROUP") return RedisErrorCode::kNoGroup;
  if (word == "EXISTS") return RedisErrorCode::kExists;
  return RedisErrorCode::kOther;
}

}  // namespace merlin
