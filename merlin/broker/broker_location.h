#pragma once
/// Where the broker (and the state store beside it) lives, free of any client library's
/// types: parsed from `MERLIN_BROKER_URL`, `--broker` or `~/.merlin/app.yaml`.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "merlin/util/result.h"

namespace merlin {

/// How a TLS client checks the server's certificate: Python's ssl.CERT_NONE, CERT_OPTIONAL and
/// CERT_REQUIRED, which Celery's `?ssl_cert_reqs=` and Merlin's `cert_reqs:` name.
enum class CertReqs { kUnset, kNone, kOptional, kRequired };

/// `none`, `optional`, `required`, or `CERT_NONE`, `CERT_OPTIONAL`, `CERT_REQUIRED`, in any
/// case; nullopt for anything else.
std::optional<CertReqs> parse_cert_reqs(std::string_view text);

/// A broker's TLS settings as written (URL options `ssl_cert_reqs`, `ssl_ca_certs`,
/// `ssl_certfile`, `ssl_keyfile`; app.yaml's `cert_reqs`, `ca_certs`, `certfile`, `keyfile`):
/// what a rediss:// or amqps:// connection verifies and presents (docs/tls.md).
struct BrokerTls {
  CertReqs cert_reqs = CertReqs::kUnset;
  std::string ca_certs;  ///< the CA bundle to check the server against
  std::string certfile;  ///< this client's certificate
  std::string keyfile;   ///< this client's key
  bool empty() const {
    return cert_reqs == CertReqs::kUnset && ca_certs.empty() && certfile.empty() && keyfile.empty();
  }
};

struct BrokerLocation {
  /// redis, rediss (TLS), redis+socket; amqp, amqps (TLS) for RabbitMQ
  std::string scheme = "redis";
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string socket_path;  ///< redis+socket:///path: a Unix socket instead of host:port
  bool tls = false;         ///< rediss:// (Redis over TLS) or amqps://
  BrokerTls tls_settings;   ///< from the URL or app.yaml
  /// Query options of the URL this build does not know (`?socket_timeout=5`), as written:
  /// noted and ignored.
  std::vector<std::pair<std::string, std::string>> options;
  std::string username;  ///< ACL user; empty: AUTH with the password alone
  std::string password;  ///< empty: no AUTH
  int db = 0;
  std::string vhost = "/";  ///< RabbitMQ's virtual host
  /// Where a RabbitMQ broker's results backend (progress, registries, stops) lives: Merlin's
  /// `results_backend`. Unused by a Redis broker, which keeps them on its own server.
  std::shared_ptr<const BrokerLocation> results;
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
/// (`%40` for '@'), and `redis+socket:///path/to/redis.sock[?virtual_host=N]` (kombu's form;
/// also `?db=N`, and `unix://`). The scheme is matched in any case. Query options: `db` and
/// `virtual_host` give the database, the `ssl_*` ones go to `tls_settings` (a bad
/// `ssl_cert_reqs` is bad input), any other is kept in `options`. Bad input names the URL
/// (everything before its last '@' masked, however malformed it is) and what is wrong with it.
/// A user or password without a host is bad input: it would go to the default address.
/// RabbitMQ URLs as kombu reads them: `amqp://[user[:password]@]host[:port][/vhost]`
/// (`amqps://` TLS, default ports 5672 and 5671; `pyamqp://` is amqp), the vhost
/// percent-decoded, "/" when empty (`amqp://h//` is "/" too).
Result<BrokerLocation> parse_broker_url(std::string_view url);

/// `%XX` escapes decoded as Python's urllib.parse.unquote does: a '%' not followed by two hex
/// digits stays as it is. How Celery reads a password that Merlin put into a URL unquoted.
std::string url_unquoted(std::string_view text);

}  // namespace merlin
