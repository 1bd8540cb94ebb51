#pragma once
/// A key of app.yaml read and not used, and why: a reason as a value, its words written once
/// (why_text), where the one note a command prints is made.
#include <string>

namespace merlin::spec {

/// Why a key is not used.
enum class IgnoredWhy {
  kTlsProtocol,       ///< broker.ssl_protocol: merlin uses TLS 1.2 or later
  kNotAServerKey,     ///< a key of the broker block Merlin does not read
  kCelerySettings,    ///< the top-level `celery:` block
  kServerSettings,    ///< `container:` or `process:`, merlin server's settings in Merlin
  kNotAnAppYamlKey,   ///< any other top-level key
  kUrlInPlace,        ///< a block's key beside its `url` (detail: that url's key)
  kUrlReplacesBlock,  ///< the broker block, a URL given elsewhere (detail: where)
  kSocketHasPath,     ///< `server` of a socket broker given its `path` (detail: scheme)
  kSocketHasNoPort,   ///< `port` of a socket broker (detail: scheme)
  kRedisDatabase,     ///< `db_num` of a RabbitMQ broker
  kRabbitmqVhost,     ///< `vhost` of a Redis broker
  kTlsOfPlainServer,  ///< a TLS key of a plain server
  kUnknownCertReqs,   ///< a `cert_reqs` that is none of the three (detail: the value)
  kOwnProgress,       ///< `results_backend` beside a broker that keeps progress itself
};

struct IgnoredKey {
  std::string key;  ///< "broker.ssl_protocol", or a whole block: "celery"
  IgnoredWhy why;
  std::string detail = {};  ///< what the reason's words name, for the reasons that say
};

/// The reason in words, as the note prints it: "a TLS setting merlin does not take: it uses
/// TLS 1.2 or later". Pure.
std::string why_text(const IgnoredKey& key);

}  // namespace merlin::spec
