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

#include "merlin/core/util/result.h"

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

/// How long a command retries while the server cannot be reached or does not answer, and how
/// long one reply may take, when neither --broker-retry/--broker-timeout nor their variables
/// say: the one place these defaults are written.
inline constexpr std::chrono::milliseconds kDefaultRetryBudget{30'000};
inline constexpr std::chrono::milliseconds kDefaultReplyTimeout{10'000};

/// What a broker URL's path names: a Redis database number, a RabbitMQ virtual host, or (a
/// socket URL) the socket's path.
enum class UrlPath { kDatabase, kVirtualHost, kSocketPath };

/// Where a location's values came from: decisions look at `kind`, messages print `name`.
enum class LocationSource { kDefault, kAppYaml, kEnvironment, kFlag, kRunRecord };
struct SourceOf {
  LocationSource kind = LocationSource::kDefault;
  /// "default", the app.yaml's path, "MERLIN_BROKER_URL", "--broker", "run.env", ...
  std::string name = "default";
};

struct BrokerProvider;
class BrokerProviders;

struct BrokerLocation {
  /// The URL scheme, lower case and canonical (redis, rediss, redis+socket, amqp, amqps...):
  /// printed, never compared outside the provider that declares it.
  std::string scheme;
  std::string host = "127.0.0.1";
  int port = 0;             ///< the form's default port unless the URL or app.yaml gives one
  std::string socket_path;  ///< redis+socket:///path: a Unix socket instead of host:port
  bool tls = false;         ///< a TLS form (rediss://, amqps://)
  UrlPath path = UrlPath::kDatabase;  ///< what the URL's path names
  BrokerTls tls_settings;             ///< from the URL or app.yaml
  /// Query options of the URL this build does not know (`?socket_timeout=5`), as written:
  /// noted and ignored.
  std::vector<std::pair<std::string, std::string>> options;
  std::string username;  ///< ACL user; empty: AUTH with the password alone
  std::string password;  ///< empty: no AUTH
  int db = 0;
  std::string vhost = "/";  ///< a virtual host (UrlPath::kVirtualHost)
  /// The provider of this kind of broker (null: none, a location not parsed by the table).
  const BrokerProvider* provider = nullptr;
  /// Where a broker that needs one keeps progress, registries and stops: Merlin's
  /// `results_backend`. Unused by a broker that keeps them on its own server.
  std::shared_ptr<const BrokerLocation> results;
  SourceOf source;  ///< where these values came from, for messages and `info`
  /// How long a command retries while the server cannot be reached or does not answer
  /// (--broker-retry); unset: kDefaultRetryBudget.
  std::optional<std::chrono::milliseconds> retry_budget;
  /// How long one reply may take before the connection counts as lost (--broker-timeout);
  /// unset: kDefaultReplyTimeout.
  std::optional<std::chrono::milliseconds> reply_timeout;

  /// Whether this kind of broker keeps progress on a results backend (its provider says).
  bool needs_results_backend() const;
  /// "redis://host:port/db" with the password never shown ("redis://:***@host:port/db").
  std::string display() const;
};

/// Parses a broker URL, its scheme one of `providers`' forms (matched in any case):
/// `scheme://[[user]:password@]host[:port][/path][?k=v&...]`, IPv6 hosts in brackets
/// (`redis://[::1]:6379`), percent-encoded user and password (`%40` for '@'). The form says the
/// default port, TLS, and what the path is: a database number (`redis://h/3`), a virtual host
/// (`amqp://h/vh`, percent-decoded, "/" when empty: `amqp://h//` is "/" too), or a socket's
/// absolute path (`redis+socket:///path/to/redis.sock[?virtual_host=N]`, kombu's form; also
/// `?db=N`). Query options: `db` and `virtual_host` give the database, the `ssl_*` ones go to
/// `tls_settings` (a bad `ssl_cert_reqs` is bad input), `username`/`password` (redis-py's)
/// win over the address's, any other is kept in `options`. Bad input names the URL
/// (everything before its last '@' masked, however malformed it is) and what is wrong with it.
/// A user or password without a host is bad input: it would go to the default address.
Result<BrokerLocation> parse_broker_url(std::string_view url, const BrokerProviders& providers);

/// `%XX` escapes decoded as Python's urllib.parse.unquote does: a '%' not followed by two hex
/// digits stays as it is. How Celery reads a password that Merlin put into a URL unquoted.
std::string url_unquoted(std::string_view text);

}  // namespace merlin
