#pragma once
/// The broker flags of the broker-backed commands and what the process reads for them (the
/// app.yaml path, the environment); the decision is run::resolve_broker
/// (merlin/run/broker_resolution.h), through this build's providers (backends.h).
#include <string>

#include "merlin/core/broker/broker_location.h"
#include "merlin/run/broker_resolution.h"
#include "merlin/core/util/result.h"

namespace CLI {
class App;
}

namespace merlin::cli {

using BrokerFlags = run::BrokerOptions;
using run::BrokerEnvironment;

/// Adds `--broker URL`, `--results-backend URL`, `--broker-retry SECONDS` and
/// `--broker-timeout SECONDS` to a subcommand.
void add_broker_flags(CLI::App& sub, BrokerFlags& flags);

/// The app.yaml this process reads: find_app_config of the working directory and $HOME.
std::string app_config_path();

/// app.yaml's top-level `scratch:` ("" when none, or when app.yaml cannot be read: the broker
/// resolution reports that).
std::string app_scratch();

/// app_config_path() and this process's environment.
BrokerEnvironment current_broker_environment();

/// run::resolve_broker through this build's providers.
Result<BrokerLocation> resolve_broker(const BrokerFlags& flags, const BrokerEnvironment& env);
/// resolve_broker with current_broker_environment().
Result<BrokerLocation> resolve_broker(const BrokerFlags& flags);

}  // namespace merlin::cli
