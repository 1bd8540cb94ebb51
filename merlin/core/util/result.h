#pragma once
/// Expected failures as values: `Result<T>` holds either a T or an Error.
#include <string>
#include <utility>
#include <variant>

namespace merlin {

/// Why something failed. `code` maps to the process exit code at the CLI edge.
enum class ErrorCode {
  kBadInput = 2,     ///< malformed spec, sample file or CLI argument (exit 2)
  kRuntime = 1,      ///< the study or an outside system failed (exit 1)
  kUnavailable = 3,  ///< a server or resource could not be reached (exit 1 at the CLI)
  kExists = 4,       ///< what was to be created is there already (a study key queued twice)
  /// A write failed because the file system or the quota is full (ENOSPC, EDQUOT; exit 4):
  /// nothing was recorded for the task at hand, which runs again once there is space.
  kNoSpace = 5,
};

struct Error {
  ErrorCode code = ErrorCode::kRuntime;
  std::string message;
  bool retryable = false;

  static Error bad_input(std::string m) { return {ErrorCode::kBadInput, std::move(m), false}; }
  static Error runtime(std::string m) { return {ErrorCode::kRuntime, std::move(m), false}; }
  static Error unavailable(std::string m) { return {ErrorCode::kUnavailable, std::move(m), true}; }
};

/// Either a value or an Error. Check `ok()` before `value()`.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T v) : v_(std::move(v)) {}      // NOLINT: implicit on purpose
  Result(Error e) : v_(std::move(e)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Result of an operation with no value.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error e) : err_(std::move(e)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return err_; }

 private:
  Error err_;
  bool ok_ = true;
};

inline Result<void> ok() { return {}; }

}  // namespace merlin
