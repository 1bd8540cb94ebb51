#include "merlin/cli/broker_config.h"

#include <sys/stat.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "merlin/spec/app_config.h"
#include "merlin/util/log.h"
#include "merlin/util/path_expand.h"
#include "merlin/workspace/files.h"

namespace merlin::cli {
namespace {

std::string expand_home(const std::string& path) {
  return expand_user(path, process_environment());
}

// Merlin's `broker.password`: the path of a file holding the password, which only its owner
// (and group) may read; or, when no such file exists, the password itself, as Merlin takes it.
// The value is never put in a message then: it is a secret.
Result<std::string> app_password(const std::string& written, const std::string& config) {
  std::string path = expand_home(written);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR && errno != ENAMETOOLONG)
      return Error::bad_input(
          config + ": broker.password: cannot read the file it names: " + std::strerror(errno));
    log::warn(
        "{}: broker.password names no file, so its value is used as the password itself (as "
        "Merlin does); better put the password in a file only you can read (chmod 600) and "
        "name that file",
        config);
    return written;
  }
  if (st.st_mode & S_IROTH) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Error::bad_input(config + ": broker password file " + path +
                            " is readable by everyone (mode " + mode + "); run: chmod 600 " + path);
  }
  auto text = files::read(path);
  if (!text) return text.error();
  std::string pw = *text;
  while (!pw.empty() && (pw.back() == '\n' || pw.back() == '\r')) pw.pop_back();
  return pw;
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

}  // namespace

void add_broker_flags(CLI::App& sub, BrokerFlags& flags) {
  sub.add_option("--broker", flags.url,
                 "Broker URL redis://[[user]:password@]host[:port][/db] (also [::1] hosts, "
                 "%-encoded passwords, redis+socket:///path.sock?db=N); overrides "
                 "MERLIN_BROKER_URL and ~/.merlin/app.yaml");
  const RedisSettings defaults;
  sub.add_option("--broker-retry", flags.retry_seconds,
                 "Seconds a broker command keeps retrying while the server cannot be reached or "
                 "does not answer, before the command fails (default " +
                     std::to_string(defaults.reconnect_budget.count() / 1000) +
                     "; overrides MERLIN_BROKER_RETRY)")
      ->check(CLI::Range(0.0, 1e6));
  sub.add_option("--broker-timeout", flags.timeout_seconds,
                 "Seconds one broker reply may take before the connection counts as lost and "
                 "the command is retried (default " +
                     std::to_string(defaults.command_timeout.count() / 1000) +
                     "; overrides MERLIN_BROKER_TIMEOUT)")
      ->check(CLI::Range(0.001, 1e6));
}

std::string app_config_path() { return expand_home("~/.merlin/app.yaml"); }

BrokerEnvironment BrokerEnvironment::current() {
  auto get = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  return {app_config_path(), get("MERLIN_BROKER_URL"), get("MERLIN_BROKER_RETRY"),
          get("MERLIN_BROKER_TIMEOUT")};
}

Result<BrokerLocation> resolve_broker(const BrokerFlags& flags) {
  return resolve_broker(flags, BrokerEnvironment::current());
}

Result<BrokerLocation> resolve_broker(const BrokerFlags& flags, const BrokerEnvironment& env) {
  BrokerLocation loc;
  auto config = spec::read_app_config(env.app_config);
  if (!config) return config.error();
  const auto& b = config->broker;
  // A URL replaces app.yaml's broker whole: its password is not read (nor warned about) then.
  const bool url_given = !env.url.empty() || !flags.url.empty();
  if (b.present && !url_given) {
    loc.source = config->path;
    if (b.name == "rabbitmq" || b.name == "amqp" || b.name == "amqps" || b.name == "pyamqp")
      return Error::runtime(
          "the broker in " + config->path +
          " is RabbitMQ, which this build does not speak yet (issue #11); point "
          "MERLIN_BROKER_URL or --broker at a Redis, or set broker.name: redis there");
    if (b.name == "rediss") loc.tls = true;
    if (b.name == "redis+socket" || b.name == "unix") {
      loc.scheme = "redis+socket";
      loc.socket_path = expand_home(b.server);
    } else if (!b.name.empty() && b.name != "redis" && b.name != "rediss") {
      return Error::bad_input(config->path + ": broker.name '" + b.name +
                              "' is not known (redis, rediss, redis+socket; rabbitmq comes with "
                              "issue #11)");
    }
    if (!b.server.empty() && loc.socket_path.empty()) loc.host = b.server;
    if (b.port > 0) loc.port = b.port;
    if (b.db >= 0) loc.db = b.db;
    loc.username = b.username;
    if (!b.password_file.empty()) {
      auto pw = app_password(b.password_file, config->path);
      if (!pw) return pw.error();
      loc.password = *pw;
    }
  }
  if (config->results_backend.present || !config->ignored.empty()) {
    // One line for all of it: a Merlin user's file works, and says what is not used.
    std::string keys;
    for (const auto& k : config->ignored)
      if (k.rfind("results_backend.", 0) != 0) keys += (keys.empty() ? "" : ", ") + k;
    log::info("{}: {}{}{}", config->path,
              config->results_backend.present
                  ? "results_backend is not used (progress is kept in the broker's Redis, so a "
                    "commit and the queueing of its dependents share one server)"
                  : "",
              config->results_backend.present && !keys.empty() ? "; " : "",
              keys.empty() ? "" : "ignored here: " + keys);
  }
  if (!env.url.empty()) {
    auto parsed = parse_broker_url(env.url);
    if (!parsed) return Error{parsed.error().code, "MERLIN_BROKER_URL: " + parsed.error().message};
    loc = *parsed;
    loc.source = "MERLIN_BROKER_URL";
  }
  if (!flags.url.empty()) {
    auto parsed = parse_broker_url(flags.url);
    if (!parsed) return Error{parsed.error().code, "--broker: " + parsed.error().message};
    loc = *parsed;
    loc.source = "--broker";
  }
  if (loc.tls)
    return Error::runtime("the broker " + loc.display() + " (from " + loc.source +
                          ") is Redis over TLS, which this build cannot connect to yet (issue "
                          "#16); use a redis:// broker on a trusted network meanwhile");
  if (!loc.options.empty()) {
    std::string names;
    for (const auto& [k, v] : loc.options) names += (names.empty() ? "" : ", ") + k;
    log::info("{}: URL options not used by this build: {}", loc.source, names);
  }
  auto retry = seconds_setting(flags.retry_seconds, "MERLIN_BROKER_RETRY", env.retry, 0);
  if (!retry) return retry.error();
  loc.retry_budget = *retry;
  auto timeout =
      seconds_setting(flags.timeout_seconds, "MERLIN_BROKER_TIMEOUT", env.timeout, 0.001);
  if (!timeout) return timeout.error();
  loc.reply_timeout = *timeout;
  return loc;
}

RedisSettings redis_settings(const BrokerLocation& loc, const std::string& study_key) {
  RedisSettings s;
  s.host = loc.host;
  s.port = loc.port;
  s.socket_path = loc.socket_path;
  s.username = loc.username;
  s.password = loc.password;
  s.db = loc.db;
  s.study_key = study_key;
  if (loc.retry_budget) s.reconnect_budget = *loc.retry_budget;
  if (loc.reply_timeout) s.command_timeout = *loc.reply_timeout;
  return s;
}

}  // namespace merlin::cli
