#pragma once
/// Where the broker is, for the broker-backed commands: Merlin's app.yaml (found as Merlin
/// finds it, read as app_broker.h says), then `MERLIN_BROKER_URL`, then `--broker URL`, each
/// replacing the one before. A broker that needs a results backend (RabbitMQ) keeps progress on
/// one: app.yaml's `results_backend`, then `MERLIN_RESULTS_BACKEND_URL`, then
/// `--results-backend URL`; other brokers keep everything on their own server. Either may be
/// Redis over TLS (rediss://, docs/tls.md). How long commands retry a lost server and wait for
/// a reply: `--broker-retry` and `--broker-timeout` (seconds), else `MERLIN_BROKER_RETRY` and
/// `MERLIN_BROKER_TIMEOUT`. A decision on values: the CLI declares the flags and reads the
/// environment (merlin/cli/broker_config.h); the brokers' own forms come from the providers.
#include <string>

#include "merlin/core/broker/broker_location.h"
#include "merlin/core/broker/broker_provider.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// The command line's say on the broker.
struct BrokerOptions {
  std::string url;              ///< --broker
  std::string results_url;      ///< --results-backend
  double retry_seconds = -1;    ///< --broker-retry; < 0: not given
  double timeout_seconds = -1;  ///< --broker-timeout; < 0: not given
};

/// What resolve_broker reads besides the options.
struct BrokerEnvironment {
  std::string app_config;   ///< the app.yaml to read (missing: none)
  std::string url;          ///< MERLIN_BROKER_URL ("" = unset)
  std::string retry;        ///< MERLIN_BROKER_RETRY
  std::string timeout;      ///< MERLIN_BROKER_TIMEOUT
  std::string results_url;  ///< MERLIN_RESULTS_BACKEND_URL
  /// MERLIN_CREDENTIALS_WITHHELD: inside a step, the credential variables its worker had and
  /// the step was not given (workers/step_environment.h); "" elsewhere.
  std::string withheld;
};

/// Resolves the location through `providers`; kBadInput for a malformed app.yaml, URL,
/// password file or number of seconds, kRuntime for a broker this build does not speak. Logs
/// one info line naming the app.yaml keys not used and why, and one naming URL options not
/// used. No message shows a password. A URL replaces app.yaml's broker whole (its password is
/// not read then). Inside a step that was not given its worker's MERLIN_BROKER_URL
/// (`withheld`), no broker named anywhere is kBadInput saying how to give it one, rather than
/// the default address.
Result<BrokerLocation> resolve_broker(const BrokerOptions& options, const BrokerEnvironment& env,
                                      const BrokerProviders& providers);

}  // namespace merlin::run
