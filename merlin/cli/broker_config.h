#pragma once
/// Where the broker is, for the broker-backed commands: Merlin's app.yaml (found as Merlin
/// finds it, read as app_broker.h says), then `MERLIN_BROKER_URL`, then `--broker URL`, each
/// replacing the one before. A RabbitMQ broker keeps progress on a Redis results backend:
/// app.yaml's `results_backend`, then `MERLIN_RESULTS_BACKEND_URL`, then `--results-backend
/// URL`; a Redis broker keeps everything on its own server. Either may be Redis over TLS
/// (rediss://, docs/tls.md). How long commands retry a lost server and
/// wait for a reply: `--broker-retry` and `--broker-timeout` (seconds), else
/// `MERLIN_BROKER_RETRY` and `MERLIN_BROKER_TIMEOUT`. The concrete adapter settings are made
/// here (the CLI names adapters).
#include <string>

#include "merlin/broker/broker_location.h"
#include "merlin/util/result.h"

namespace CLI {
class App;
}

namespace merlin::cli {

struct BrokerFlags {
  std::string url;              ///< --broker
  std::string results_url;      ///< --results-backend
  double retry_seconds = -1;    ///< --broker-retry; < 0: not given
  double timeout_seconds = -1;  ///< --broker-timeout; < 0: not given
};

/// Adds `--broker URL`, `--broker-retry SECONDS` and `--broker-timeout SECONDS` to a
/// subcommand.
void add_broker_flags(CLI::App& sub, BrokerFlags& flags);

/// The app.yaml this process reads: find_app_config of the working directory and $HOME.
std::string app_config_path();

/// app.yaml's top-level `scratch:` ("" when none, or when app.yaml cannot be read: the broker
/// resolution reports that).
std::string app_scratch();

/// What resolve_broker reads besides the flags.
struct BrokerEnvironment {
  std::string app_config;  ///< the app.yaml to read (missing: none)
  std::string url;         ///< MERLIN_BROKER_URL ("" = unset)
  std::string retry;       ///< MERLIN_BROKER_RETRY
  std::string timeout;     ///< MERLIN_BROKER_TIMEOUT
  std::string results_url;  ///< MERLIN_RESULTS_BACKEND_URL
  /// MERLIN_CREDENTIALS_WITHHELD: inside a step, the credential variables its worker had and
  /// the step was not given (workers/step_environment.h); "" elsewhere.
  std::string withheld;
  /// app_config_path() and this process's environment.
  static BrokerEnvironment current();
};

/// Resolves the location; kBadInput for a malformed app.yaml, URL, password file or number of
/// seconds, kRuntime for a broker this build does not speak. Logs one info line naming the
/// app.yaml keys not used and why, and one naming URL options not used. No message shows a
/// password. A URL replaces app.yaml's broker whole (its password is not read then). Inside a
/// step that was not given its worker's MERLIN_BROKER_URL (`withheld`), no broker named
/// anywhere is kBadInput saying how to give it one, rather than the default address.
Result<BrokerLocation> resolve_broker(const BrokerFlags& flags, const BrokerEnvironment& env);
/// resolve_broker with BrokerEnvironment::current().
Result<BrokerLocation> resolve_broker(const BrokerFlags& flags);

}  // namespace merlin::cli
