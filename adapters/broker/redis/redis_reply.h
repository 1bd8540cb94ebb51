#pragma once
/// A Redis reply as a plain value, so that hiredis types never leave redis_connection.cc.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adapters/broker/redis/redis_error.h"

namespace merlin {

struct RedisReply {
  enum class Type { kNil, kInteger, kString, kStatus, kError, kArray };
  Type type = Type::kNil;
  long long integer = 0;
  std::string str;  ///< kString, kStatus, kError
  /// kError: the reply's code (its first word), read once as the reply is parsed.
  RedisErrorCode error_code = RedisErrorCode::kNone;
  std::vector<RedisReply> elements;

  bool is_nil() const { return type == Type::kNil; }
  bool is_error() const { return type == Type::kError; }
  bool is_array() const { return type == Type::kArray; }
  /// The integer, or a string holding one ("12"); nullopt otherwise.
  std::optional<long long> as_integer() const;
  /// The text of a string/status reply; "" for nil.
  const std::string& text() const { return str; }
};

}  // namespace merlin
