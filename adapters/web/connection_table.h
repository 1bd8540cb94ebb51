#pragma once
/// The connections a web server holds and which of them to close: pure bookkeeping on times
/// given by the caller (no clock, no sockets), so the limits of HttpLimits are unit-tested.
/// Not thread-safe: one owner (the server's accept loop) calls it, under its lock.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "adapters/web/http_limits.h"

namespace merlin::web {

/// A connection's id (its descriptor); unique among the connections held.
using ConnectionId = int;

class ConnectionTable {
 public:
  explicit ConnectionTable(const HttpLimits& limits) : limits_(limits) {}

  struct Admission {
    bool admitted = false;                ///< false: close the newcomer at once
    std::optional<ConnectionId> evicted;  ///< a connection to close to make room
  };
  /// A connection accepted at `now_ms`: it waits for its head until `now_ms` plus the head
  /// timeout. At the cap, the connection waiting longest for its head makes room (evicted);
  /// when every held connection is being answered, the newcomer is refused.
  Admission admit(ConnectionId id, std::int64_t now_ms);
  /// Its head is complete: it is being answered, never evicted nor timed out.
  void answering(ConnectionId id);
  /// Closed: no longer held.
  void release(ConnectionId id);
  /// The connections whose head did not arrive in time, at `now_ms`.
  std::vector<ConnectionId> expired(std::int64_t now_ms) const;
  /// The earliest head deadline of a waiting connection, if any.
  std::optional<std::int64_t> next_deadline() const;
  /// The connections waiting for their head, oldest first.
  std::vector<ConnectionId> waiting() const;
  std::size_t size() const { return held_.size(); }

 private:
  struct Held {
    std::int64_t accepted_ms = 0;
    std::uint64_t order = 0;  ///< admission order, for ties in time
    bool answering = false;
  };
  HttpLimits limits_;
  std::map<ConnectionId, Held> held_;
  std::uint64_t next_order_ = 0;
};

enum class HeadState { kIncomplete, kComplete, kTooLarge };

/// Whether `bytes` (what a connection sent so far) hold a whole request head: the request line
/// and headers ended by an empty line ("\r\n\r\n", or "\n\n" which httplib accepts too).
/// kTooLarge once more than `max_head_bytes` arrived without one.
HeadState scan_head(std::string_view bytes, std::size_t max_head_bytes);

}  // namespace merlin::web
