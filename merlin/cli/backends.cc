// The table of backends: a new kind of broker is a folder in adapters/broker/ and a line here.
#include "merlin/cli/backends.h"

#include <functional>

#include "adapters/broker/redis/redis_backend.h"

namespace merlin::cli {
namespace {

RedisSettings redis_settings(const BrokerLocation& loc, const BackendOptions& o) {
  RedisSettings s;
  s.host = loc.host;
  s.port = loc.port;
  s.socket_path = loc.socket_path;
  s.username = loc.username;
  s.password = loc.password;
  s.db = loc.db;
  if (loc.retry_budget) s.reconnect_budget = *loc.retry_budget;
  if (loc.reply_timeout) s.command_timeout = *loc.reply_timeout;
  s.retry_first_connect = o.wait_for_server;
  return s;
}

std::unique_ptr<Backend> redis(const BrokerLocation& loc, const BackendOptions& o) {
  return std::make_unique<RedisBackend>(redis_settings(loc, o));
}

struct Entry {
  const char* scheme;
  std::function<std::unique_ptr<Backend>(const BrokerLocation&, const BackendOptions&)> make;
};

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = {
      {"redis", redis},
      {"redis+socket", redis},
  };
  return t;
}

}  // namespace

Result<std::unique_ptr<Backend>> open_backend(const BrokerLocation& loc,
                                              const BackendOptions& options) {
  const std::string scheme = loc.scheme.empty() ? "redis" : loc.scheme;
  for (const auto& e : table())
    if (scheme == e.scheme) return e.make(loc, options);
  std::string served;
  for (const auto& s : backend_schemes()) served += (served.empty() ? "" : ", ") + s;
  return Error::runtime("no backend in this build serves " + scheme + "://" + " (it serves " +
                        served + ")");
}

std::vector<std::string> backend_schemes() {
  std::vector<std::string> out;
  for (const auto& e : table()) out.push_back(e.scheme);
  return out;
}

std::chrono::milliseconds default_retry_budget() { return RedisSettings{}.reconnect_budget; }
std::chrono::milliseconds default_reply_timeout() { return RedisSettings{}.command_timeout; }

}  // namespace merlin::cli
