#pragma once
/// Where the broker (and the state store beside it) lives, free of any client library's
/// types: parsed from `MERLIN_BROKER_URL`, `--broker` or `~/.merlin/app.yaml`.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "merlin/util/result.h"

namespace merlin {

struct BrokerLocation {
  std::string scheme = "redis";  ///< redis, rediss (TLS) or redis+socket
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string socket_path;  ///< redis+socket:///path: a Unix socket instead of host:port
  bool tls = false;         ///< rediss://: Redis over TLS (refused until issue #16 lands)
  /// Query options of the URL (`?ssl_cert_reqs=none`), as written; the TLS ones are for the
  /// TLS work, the rest are noted and ignored.
  std::vector<std::pair<std::string, std::string>> options;
  std::string username;  ///< ACL user; empty: AUTH with the password alone
  std::string password;  ///< empty: no AUTH
  int db = 0;
  std::string source = "default";  ///< where these values came from, for messages and `info`
  /// How long a command retries while the server cannot be reached or does not answer
  /// (--broker-retry); unset: the adapter's default.
  std::optional<std::chrono::milliseconds> retry_budget;
  /// How long one reply may take before the connection counts as lost (--broker-timeout);
  /// unset: the adapter's default.
  std::optional<std::chrono::milliseconds> reply_timeout;

  /// "redis://host:port/db" with the password never shown ("redis://:***@host:port/db").
  std::string display() const;
};

/// Parses `redis://[[user]:password@]host[:port][/db][?k=v&...]`, also `rediss://` (TLS),
/// IPv6 hosts in brackets (`redis://[::1]:6379`), percent-encoded user and password
/// (`%40` for '@'), and `redis+socket:///path/to/redis.sock[?db=N]` (Celery's form; also
/// `unix://`). Bad input names the URL (everything before its last '@' masked, however
/// malformed it is) and what is wrong with it. A user or password without a host is bad input:
/// it would go to the default address. RabbitMQ URLs (`amqp://`, `amqps://`, `pyamqp://`) are
/// a kFailed error saying this build has no RabbitMQ yet.
Result<BrokerLocation> parse_broker_url(std::string_view url);

}  // namespace merlin
