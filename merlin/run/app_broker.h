#pragma once
/// The broker that Merlin's app.yaml names, as this build reaches it, and the one line that
/// tells a Merlin user which of the file's keys are not used here.
#include <string>
#include <vector>

#include "merlin/core/broker/broker_location.h"
#include "merlin/core/broker/broker_provider.h"
#include "merlin/core/spec/app_config.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// Which app.yaml a command reads, in Merlin's order: `app.yaml` in `cwd`; the file named in
/// `<home>/.merlin/config_path.txt` (what `merlin config create -o` and `merlin config use`
/// write) when that file exists; `<home>/.merlin/app.yaml` (which may not exist).
std::string find_app_config(const std::string& cwd, const std::string& home);
/// find_app_config without the working directory's file: the app.yaml commands read from any
/// directory that has none (what `merlin server start` points at its server).
std::string find_home_app_config(const std::string& home);

/// `config.broker` as a location, its source the file, the names those of `providers`. As
/// Merlin reads it: `url` wins over
/// every other key; `name` redis (or none), rediss (Redis over TLS, docs/tls.md),
/// redis+socket (`path`, else `server`, is the socket), rabbitmq and amqps (RabbitMQ over TLS,
/// port 5671), amqp (port 5672); `server`, `port`, `db_num` (Redis), `vhost` (RabbitMQ),
/// `username`; `password` names a file (tried under ~/.merlin first, as Merlin does; its first
/// line, trimmed, is the password; a file readable by everyone is refused) or, with a warning,
/// is the password itself (%-escapes decoded, as Celery reads the URL Merlin makes of it);
/// `cert_reqs`, `ca_certs`, `certfile`, `keyfile` are its TLS settings (paths with `~`
/// expanded). Errors name `file:line:col`: an unknown name, a placeholder of Merlin's template
/// (`<server name>`) or a port that is no number is kBadInput. Keys of the block that the broker
/// does not use (TLS settings of a plain server, a Redis's `vhost`, RabbitMQ's `db_num`, the others
/// beside `url`) are appended to `unused`. Reads the password file.
Result<BrokerLocation> app_broker(const spec::AppConfig& config,
                                  std::vector<spec::IgnoredKey>& unused,
                                  const BrokerProviders& providers);

/// `config.results_backend` read the same way: where a RabbitMQ broker's progress lives. Only
/// the names of brokers that keep progress themselves (redis, rediss, redis+socket).
Result<BrokerLocation> app_results_backend(const spec::AppConfig& config,
                                           std::vector<spec::IgnoredKey>& unused,
                                           const BrokerProviders& providers);

/// "celery (why); broker.vhost, broker.cert_reqs (why)": the keys, those with the same
/// reason together, in the order first named.
std::string unused_keys_note(const std::vector<spec::IgnoredKey>& unused);

}  // namespace merlin::run
