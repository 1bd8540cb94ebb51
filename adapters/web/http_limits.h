#pragma once
/// What one `merlin monitor --web` server holds at most, and for how long (docs/security.md,
/// section 5): each default is written here once.
#include <cstddef>
#include <cstdint>

namespace merlin::web {

struct HttpLimits {
  /// Connections held at once (waiting for their request head or being answered). When one
  /// more arrives, the one that has waited longest for its head is closed; when none waits,
  /// the newcomer is closed.
  std::size_t max_connections = 64;
  /// A request line and headers must arrive in full within this many milliseconds of the
  /// connection (a total, not a per-read timeout: a byte a second does not extend it).
  std::int64_t head_timeout_ms = 5000;
  /// A request head larger than this is refused (431) and the connection closed.
  std::size_t max_head_bytes = 16 * 1024;
  /// Writing a response must end within this many milliseconds.
  std::int64_t write_timeout_ms = 5000;
  /// Threads answering complete requests (from the cached status: no broker call).
  std::size_t threads = 4;
};

}  // namespace merlin::web
