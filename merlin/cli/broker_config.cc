#include "merlin/cli/broker_config.h"

#include <sys/stat.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

#include "merlin/spec/app_config.h"
#include "merlin/util/log.h"
#include "merlin/workspace/files.h"

namespace merlin::cli {
namespace {

std::string expand_home(const std::string& path) {
  if (path.rfind("~/", 0) != 0) return path;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + path.substr(1);
}

// The password from a file that only its owner (and group) may read.
Result<std::string> read_password_file(const std::string& written, const std::string& config) {
  std::string path = expand_home(written);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Error::bad_input(config + ": broker password file not found: " + path);
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

}  // namespace

void add_broker_flags(CLI::App& sub, BrokerFlags& flags) {
  sub.add_option("--broker", flags.url,
                 "Broker URL redis://[:password@]host:port/db (overrides MERLIN_BROKER_URL and "
                 "~/.merlin/app.yaml)");
}

std::string app_config_path() { return expand_home("~/.merlin/app.yaml"); }

Result<BrokerLocation> resolve_broker(const BrokerFlags& flags) {
  BrokerLocation loc;
  auto config = spec::read_app_config(app_config_path());
  if (!config) return config.error();
  const auto& b = config->broker;
  if (b.present) {
    loc.source = config->path;
    if (!b.name.empty() && b.name != "redis")
      return Error::bad_input(config->path + ": broker.name '" + b.name +
                              "' is not supported yet (use redis)");
    if (!b.server.empty()) loc.host = b.server;
    if (b.port > 0) loc.port = b.port;
    if (b.db >= 0) loc.db = b.db;
    loc.username = b.username;
    if (!b.password_file.empty()) {
      auto pw = read_password_file(b.password_file, config->path);
      if (!pw) return pw.error();
      loc.password = *pw;
    }
    const auto& rb = config->results_backend;
    if (rb.present &&
        ((!rb.server.empty() && rb.server != loc.host) || (rb.port > 0 && rb.port != loc.port)))
      log::warn(
          "{}: results_backend is not used: progress is kept in the broker's Redis, so "
          "that a commit and the queueing of its dependents share one server",
          config->path);
  }
  if (const char* env = std::getenv("MERLIN_BROKER_URL"); env && *env) {
    auto parsed = parse_broker_url(env);
    if (!parsed) return Error::bad_input("MERLIN_BROKER_URL: " + parsed.error().message);
    loc = *parsed;
    loc.source = "MERLIN_BROKER_URL";
  }
  if (!flags.url.empty()) {
    auto parsed = parse_broker_url(flags.url);
    if (!parsed) return Error::bad_input("--broker: " + parsed.error().message);
    loc = *parsed;
    loc.source = "--broker";
  }
  return loc;
}

RedisSettings redis_settings(const BrokerLocation& loc, const std::string& study_key) {
  RedisSettings s;
  s.host = loc.host;
  s.port = loc.port;
  s.username = loc.username;
  s.password = loc.password;
  s.db = loc.db;
  s.study_key = study_key;
  return s;
}

}  // namespace merlin::cli
