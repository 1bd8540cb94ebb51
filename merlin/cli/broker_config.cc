#include "merlin/cli/broker_config.h"

#include <CLI/CLI.hpp>

#include <cstdlib>

#include "merlin/core/broker/withheld_credentials.h"
#include "merlin/cli/backends.h"
#include "merlin/cli/cli_util.h"
#include "merlin/run/app_broker.h"
#include "merlin/core/spec/app_config.h"
#include "merlin/core/util/path_expand.h"

namespace merlin::cli {
namespace {

std::string expand_home(const std::string& path) {
  return expand_user(path, process_environment());
}

}  // namespace

void add_broker_flags(CLI::App& sub, BrokerFlags& flags) {
  sub.add_option("--broker", flags.url,
                 "Broker URL " + broker_providers().flag_help() +
                     "; overrides MERLIN_BROKER_URL and app.yaml (`merlin info` names the file "
                     "read)");
  sub.add_option("--results-backend", flags.results_url,
                 "With a RabbitMQ broker: the Redis URL where progress, the study and worker "
                 "registries and stops live; overrides MERLIN_RESULTS_BACKEND_URL and app.yaml's "
                 "results_backend");
  sub.add_option("--broker-retry", flags.retry_seconds,
                 "Seconds a broker command keeps retrying while the server cannot be reached or "
                 "does not answer, before the command fails (default " +
                     std::to_string(default_retry_budget().count() / 1000) +
                     "; overrides MERLIN_BROKER_RETRY)")
      ->check(CLI::Range(0.0, 1e6));
  sub.add_option("--broker-timeout", flags.timeout_seconds,
                 "Seconds one broker reply may take before the connection counts as lost and "
                 "the command is retried (default " +
                     std::to_string(default_reply_timeout().count() / 1000) +
                     "; overrides MERLIN_BROKER_TIMEOUT)")
      ->check(CLI::Range(0.001, 1e6));
}

std::string app_config_path() { return run::find_app_config(current_dir(), expand_home("~")); }

std::string app_scratch() {
  auto config = spec::read_app_config(app_config_path());
  return config ? config->scratch : "";
}

BrokerEnvironment current_broker_environment() {
  auto get = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  return {app_config_path(),
          get("MERLIN_BROKER_URL"),
          get("MERLIN_BROKER_RETRY"),
          get("MERLIN_BROKER_TIMEOUT"),
          get("MERLIN_RESULTS_BACKEND_URL"),
          get(std::string(kWithheldVariable).c_str())};
}

Result<BrokerLocation> resolve_broker(const BrokerFlags& flags) {
  return resolve_broker(flags, current_broker_environment());
}

Result<BrokerLocation> resolve_broker(const BrokerFlags& flags, const BrokerEnvironment& env) {
  return run::resolve_broker(flags, env, broker_providers());
}

}  // namespace merlin::cli
