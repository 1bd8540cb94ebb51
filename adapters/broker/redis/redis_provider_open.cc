#include "adapters/broker/redis/redis_backend.h"
#include "adapters/broker/redis/redis_provider.h"

namespace merlin {
namespace {

RedisSettings redis_settings(const BrokerLocation& loc, const BackendOptions& o) {
  RedisSettings s;
  s.host = loc.host;
  s.port = loc.port;
  s.socket_path = loc.socket_path;
  s.tls = loc.tls;
  s.tls_settings = loc.tls_settings;
  s.username = loc.username;
  s.password = loc.password;
  if (loc.source.kind != LocationSource::kDefault) s.password_source = loc.source.name;
  s.db = loc.db;
  if (loc.retry_budget) s.reconnect_budget = *loc.retry_budget;
  if (loc.reply_timeout) s.command_timeout = *loc.reply_timeout;
  s.retry_first_connect = o.wait_for_server;
  if (o.dead_after) s.dead_after = *o.dead_after;
  return s;
}

}  // namespace

const BrokerProvider& redis_provider() {
  static const BrokerProvider p = [] {
    BrokerProvider d = redis_provider_description();
    d.open = [](const BrokerLocation& loc, const BackendOptions& o,
                const BrokerProviders&) -> Result<std::unique_ptr<Backend>> {
      return std::unique_ptr<Backend>(
          std::make_unique<RedisBackend>(redis_settings(loc, o), loc.display()));
    };
    return d;
  }();
  return p;
}

}  // namespace merlin
