#pragma once
/// What kind of error a Redis server answered, read once where a reply is parsed
/// (redis_connection.cc) and decided on everywhere else in this folder, never the text.
///
/// Redis starts every error reply with its code, one upper-case word ("NOGROUP No such key
/// ..."); a Lua script chooses its own word with `redis.error_reply("EXISTS ...")`. The code
/// travels beside the Error in a RedisResult, which stays in this folder: what leaves it is a
/// plain Result, told apart by its ErrorCode alone.
#include <string_view>
#include <type_traits>
#include <utility>

#include "merlin/core/util/result.h"

namespace merlin {

/// The error codes this folder decides on; any other is kOther.
enum class RedisErrorCode {
  kNone,      ///< no error reply: a success, or a failure of the connection
  kOther,     ///< an error reply with a code nothing here decides on (ERR, WRONGTYPE, ...)
  kLoading,   ///< LOADING: a restarted server is still reading its AOF; nothing ran
  kNoScript,  ///< NOSCRIPT: EVALSHA of a script the server's cache does not hold
  kNoGroup,   ///< NOGROUP: the stream or its consumer group is gone (purged)
  kExists,    ///< EXISTS: merlin's enqueue script refused a study key queued already
};

/// The code of an error reply's text: its first word (up to the first space). Pure.
RedisErrorCode redis_error_code_of(std::string_view error_text);

/// A Result whose error, when a server's error reply made it, also carries that reply's code.
/// It is a Result<T> (callers that return `r.error()` or the whole result are unchanged);
/// `redis_code()` is kNone for a success and for an error no reply made.
template <typename T>
class [[nodiscard]] RedisResult : public Result<T> {
 public:
  RedisResult(Result<T> r) : Result<T>(std::move(r)) {}              // NOLINT: implicit on purpose
  RedisResult(Error e, RedisErrorCode code = RedisErrorCode::kNone)  // NOLINT
      : Result<T>(std::move(e)), code_(code) {}
  template <typename U>
  requires(!std::is_void_v<T> && std::is_convertible_v<U&&, T>) RedisResult(U&& v)
      : Result<T>(T(std::forward<U>(v))) {}  // NOLINT

  RedisErrorCode redis_code() const { return code_; }

 private:
  RedisErrorCode code_ = RedisErrorCode::kNone;
};

}  // namespace merlin
