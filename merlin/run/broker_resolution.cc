#include "merlin/run/broker_resolution.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <vector>

#include "merlin/run/app_broker.h"
#include "merlin/core/spec/app_config.h"
#include "merlin/core/util/log.h"

namespace merlin::run {
namespace {

// A results_backend naming the broker's own Redis (what `merlin server start` writes, as
// Merlin's does) is exactly what a Redis broker uses: nothing to tell the user.
bool names_same_server(const spec::AppConfig& config, const BrokerLocation& broker,
                       const BrokerProviders& providers) {
  std::vector<spec::IgnoredKey> ignored;
  auto results = app_results_backend(config, ignored, providers);
  return results && results->host == broker.host && results->port == broker.port;
}

// Seconds from a flag (given when >= 0) or else the environment variable `name` (its value
// `text`); unset if neither.
Result<std::optional<std::chrono::milliseconds>> seconds_setting(double flag, const char* name,
                                                                 const std::string& text,
                                                                 double min) {
  double s = flag;
  if (s < 0) {
    if (text.empty()) return std::optional<std::chrono::milliseconds>();
    char* end = nullptr;
    s = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(s >= min) || s > 1e6)
      return Error::bad_input(std::string(name) + ": '" + text + "' is not a number of seconds" +
                              (min > 0 ? " above 0" : " (0 or more)"));
  }
  return std::optional(std::chrono::milliseconds(static_cast<long long>(s * 1000 + 0.5)));
}

// A RabbitMQ broker's results backend: app.yaml's, then MERLIN_RESULTS_BACKEND_URL, then
// --results-backend. Only Redis.
Result<BrokerLocation> resolve_results(const spec::AppConfig& config, const BrokerOptions& flags,
                                       const BrokerEnvironment& env,
                                       const BrokerProviders& providers,
                                       std::vector<spec::IgnoredKey>& unused) {
  std::optional<BrokerLocation> loc;
  const bool url_given = !env.results_url.empty() || !flags.results_url.empty();
  if (config.results_backend.present && !url_given) {
    auto from_file = app_results_backend(config, unused, providers);
    if (!from_file) return from_file.error();
    loc = *from_file;
  }
  for (const auto& [url, source] :
       {std::pair{env.results_url,
                  SourceOf{LocationSource::kEnvironment, "MERLIN_RESULTS_BACKEND_URL"}},
        std::pair{flags.results_url, SourceOf{LocationSource::kFlag, "--results-backend"}}}) {
    if (url.empty()) continue;
    auto parsed = parse_broker_url(url, providers);
    if (!parsed) return Error{parsed.error().code, source.name + ": " + parsed.error().message};
    loc = *parsed;
    loc->source = source;
  }
  if (!loc)
    return Error::bad_input(
        "a RabbitMQ broker keeps the study's progress, registries and stops in a Redis results "
        "backend: name it in app.yaml's results_backend, MERLIN_RESULTS_BACKEND_URL or "
        "--results-backend redis://host:port/db");
  if (loc->needs_results_backend())
    return Error::bad_input("the results backend " + loc->display() + " (from " + loc->source.name +
                            ") is " + loc->provider->title + "; it must be a " +
                            providers.all().front()->title + " (" + providers.app_names_text(true) +
                            ")");
  return *loc;
}

}  // namespace

Result<BrokerLocation> resolve_broker(const BrokerOptions& flags, const BrokerEnvironment& env,
                                      const BrokerProviders& providers) {
  BrokerLocation loc = providers.default_location();
  auto config = spec::read_app_config(env.app_config);
  if (!config) return config.error();
  std::vector<spec::IgnoredKey> unused = config->ignored;
  // A URL replaces app.yaml's broker whole: its password is not read (nor warned about) then.
  const bool url_given = !env.url.empty() || !flags.url.empty();
  if (config->broker.present) {
    if (url_given) {
      unused.erase(std::remove_if(unused.begin(), unused.end(),
                                  [](const auto& k) { return k.key.rfind("broker.", 0) == 0; }),
                   unused.end());
      unused.insert(unused.begin(), {"broker", spec::IgnoredWhy::kUrlReplacesBlock,
                                     flags.url.empty() ? "MERLIN_BROKER_URL" : "--broker"});
    } else {
      auto from_file = app_broker(*config, unused, providers);
      if (!from_file) return from_file.error();
      loc = *from_file;
    }
  }
  if (!env.url.empty()) {
    auto parsed = parse_broker_url(env.url, providers);
    if (!parsed) return Error{parsed.error().code, "MERLIN_BROKER_URL: " + parsed.error().message};
    loc = *parsed;
    loc.source = {LocationSource::kEnvironment, "MERLIN_BROKER_URL"};
  }
  if (!flags.url.empty()) {
    auto parsed = parse_broker_url(flags.url, providers);
    if (!parsed) return Error{parsed.error().code, "--broker: " + parsed.error().message};
    loc = *parsed;
    loc.source = {LocationSource::kFlag, "--broker"};
    if (!loc.password.empty())
      log::warn(
          "--broker holds a password, which every user of this host can read in the "
          "process list; give it through MERLIN_BROKER_URL or app.yaml's password file");
  }
  std::optional<BrokerLocation> results;
  if (loc.needs_results_backend()) {
    auto r = resolve_results(*config, flags, env, providers, unused);
    if (!r) return r.error();
    results = std::move(*r);
  } else if (config->results_backend.present && !names_same_server(*config, loc, providers)) {
    unused.push_back({"results_backend", spec::IgnoredWhy::kOwnProgress});
  }
  // One line for the whole file: a Merlin user's file works, and says what is not used. When
  // the broker comes from elsewhere (MERLIN_BROKER_URL, --broker) that line would follow every
  // command while telling nothing new: it is for --log-level debug then.
  if (!unused.empty()) {
    if (loc.source.kind == LocationSource::kAppYaml)
      log::info("{}: not used here: {}", config->path, unused_keys_note(unused));
    else
      log::debug("{}: not used here: {}", config->path, unused_keys_note(unused));
  }
  std::string notes;
  for (const auto& [k, v] : loc.options) notes += (notes.empty() ? "" : ", ") + k;
  if (!notes.empty()) notes += " (not options this build knows)";
  if (!loc.tls_settings.empty() && !loc.tls)
    notes += std::string(notes.empty() ? "" : "; ") +
             "ssl_* (TLS settings, which a plain redis:// connection does not use)";
  if (!notes.empty()) log::info("{}: URL options not used here: {}", loc.source.name, notes);
  // A step runs without its worker's MERLIN_BROKER_URL unless it asks (docs/security.md): say
  // so, rather than trying the default address.
  if (loc.source.kind == LocationSource::kDefault &&
      env.withheld.find("MERLIN_BROKER_URL") != std::string::npos)
    return Error::bad_input(
        "no broker is named here: this runs in a merlin step, which is not given its worker's "
        "MERLIN_BROKER_URL (it may carry a password); add 'pass_broker: true' to the step's "
        "run: block, or name the broker in ~/.merlin/app.yaml");
  auto retry = seconds_setting(flags.retry_seconds, "MERLIN_BROKER_RETRY", env.retry, 0);
  if (!retry) return retry.error();
  loc.retry_budget = *retry;
  auto timeout =
      seconds_setting(flags.timeout_seconds, "MERLIN_BROKER_TIMEOUT", env.timeout, 0.001);
  if (!timeout) return timeout.error();
  loc.reply_timeout = *timeout;
  if (results) {
    results->retry_budget = loc.retry_budget;
    results->reply_timeout = loc.reply_timeout;
    loc.results = std::make_shared<const BrokerLocation>(std::move(*results));
  }
  return loc;
}

}  // namespace merlin::run
