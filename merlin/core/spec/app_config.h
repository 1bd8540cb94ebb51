#pragma once
/// Merlin's `app.yaml`: where the broker and results backend live. Every key that Merlin's
/// templates, `merlin config create`, `merlin config update-broker`/`update-backend` and
/// `merlin server init` write is understood: the server keys are kept as written (with where
/// they were written, so whoever uses them can say what is wrong), and every other key is
/// listed in `ignored` with the reason it is not used. Nothing Merlin writes is refused here;
/// whether a value is usable (a port that is a number, a broker this build speaks) is decided
/// by whoever uses the block, so an unused block's placeholders (`port: <server port>`) are no
/// error.
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/spec/ignored_key.h"
#include "merlin/core/spec/source_location.h"
#include "merlin/core/util/result.h"

namespace merlin::spec {

/// One scalar of a server block, as written.
struct AppValue {
  bool given = false;  ///< written, and not null
  bool scalar = true;  ///< false: a list or a map where a scalar belongs
  std::string text;    ///< the scalar as written (quotes removed)
  SourceLocation where;
};

/// `broker:` or `results_backend:`.
struct AppServer {
  bool present = false;
  SourceLocation where;
  AppValue name;  ///< lowered, as Merlin compares it: redis, rediss, redis+socket, rabbitmq, ...
  AppValue url;   ///< a whole URL, which Merlin uses in place of every other key
  AppValue server, port, db_num, username;
  AppValue password;  ///< the path of a file holding it, or (as Merlin allows) the password
  AppValue path;      ///< `redis+socket`: the socket's path
  AppValue vhost;     ///< RabbitMQ's virtual host
  AppValue cert_reqs, ca_certs, certfile, keyfile;  ///< TLS
};

struct AppConfig {
  std::string path;  ///< the file read ("" when there was none)
  AppServer broker, results_backend;
  /// Top-level `scratch:` (an extension, docs/staging.md): the root `scratch: auto` takes
  /// when MERLIN_SCRATCH is not set. "" = none.
  std::string scratch;
  std::vector<IgnoredKey> ignored;  ///< in file order
};

/// Reads `path`. A missing file is no error (an empty AppConfig); one that is no YAML, or
/// whose top level or `broker` is no map, is bad input naming `file:line:col`.
Result<AppConfig> read_app_config(const std::string& path);

/// The same on text already read (read_app_config reads the file and calls this; the fuzz
/// target, tests/fuzz/). `path` is recorded and named in messages.
Result<AppConfig> parse_app_config(std::string_view text, const std::string& path);

}  // namespace merlin::spec
