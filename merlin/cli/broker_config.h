#pragma once
/// Where the broker is, for the broker-backed commands: Merlin's `~/.merlin/app.yaml`
/// (`broker:` server, port, username, password file, db_num), then `MERLIN_BROKER_URL`, then
/// `--broker URL`, each overriding the one before. A password file readable by everyone is
/// refused. The concrete adapter settings are made here (the CLI names adapters).
#include <string>

#include "adapters/broker/redis/redis_settings.h"
#include "merlin/broker/broker_location.h"
#include "merlin/util/result.h"

namespace CLI {
class App;
}

namespace merlin::cli {

struct BrokerFlags {
  std::string url;  ///< --broker
};

/// Adds `--broker URL` to a subcommand.
void add_broker_flags(CLI::App& sub, BrokerFlags& flags);

/// `$HOME/.merlin/app.yaml`.
std::string app_config_path();

/// Resolves the location; kBadInput for a malformed app.yaml, URL or password file.
Result<BrokerLocation> resolve_broker(const BrokerFlags& flags);

/// Redis settings for `loc`, naming `study_key`.
RedisSettings redis_settings(const BrokerLocation& loc, const std::string& study_key = "default");

}  // namespace merlin::cli
