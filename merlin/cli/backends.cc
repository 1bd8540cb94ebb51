// The table of backends: a new kind of broker is a folder in adapters/broker/ and a line here.
#include "merlin/cli/backends.h"

#include <functional>

#if MERLIN_HAVE_RABBITMQ
#include "adapters/broker/amqp/amqp_backend.h"
#endif
#include "adapters/broker/redis/redis_admin.h"
#include "adapters/broker/redis/redis_backend.h"
#include "adapters/broker/redis/redis_reservations.h"

namespace merlin::cli {
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
  s.db = loc.db;
  if (loc.retry_budget) s.reconnect_budget = *loc.retry_budget;
  if (loc.reply_timeout) s.command_timeout = *loc.reply_timeout;
  s.retry_first_connect = o.wait_for_server;
  if (o.dead_after) s.dead_after = *o.dead_after;
  return s;
}

// RabbitMQ for the tasks, the Redis of `loc.results` for the rest (progress, registries, stops,
// reservations).
Result<std::unique_ptr<Backend>> rabbitmq(const BrokerLocation& loc, const BackendOptions& o) {
#if !MERLIN_HAVE_RABBITMQ
  return Error::bad_input("the broker " + loc.display() +
                          " is RabbitMQ, but this merlin was built without RabbitMQ support "
                          "(MERLIN_WITH_RABBITMQ=OFF): use a redis:// broker, or rebuild with "
                          "-DMERLIN_WITH_RABBITMQ=ON");
#else
  if (!loc.results)
    return Error::bad_input("the RabbitMQ broker " + loc.display() +
                            " has no results backend (a Redis) to keep progress in");
  AmqpSettings a;
  a.host = loc.host;
  a.port = loc.port;
  if (!loc.username.empty()) a.username = loc.username;
  if (!loc.password.empty() || !loc.username.empty()) a.password = loc.password;
  a.vhost = loc.vhost;
  a.tls = loc.tls;
  a.verify = loc.tls_settings.cert_reqs != CertReqs::kNone;
  a.ca_certs = loc.tls_settings.ca_certs;
  a.certfile = loc.tls_settings.certfile;
  a.keyfile = loc.tls_settings.keyfile;
  if (loc.reply_timeout) a.timeout = *loc.reply_timeout;
  const RedisSettings results = redis_settings(*loc.results, o);
  auto retry = o.wait_for_server ? results.reconnect_budget : std::chrono::milliseconds(0);
  return std::unique_ptr<Backend>(std::make_unique<AmqpBackend>(
      a, retry, std::make_unique<RedisBackend>(results), [results](const std::string& study) {
        RedisSettings s = results;
        s.study_key = study;
        return std::make_unique<RedisReservations>(s);
      }));
#endif
}

Result<std::unique_ptr<Backend>> redis(const BrokerLocation& loc, const BackendOptions& o) {
  return std::unique_ptr<Backend>(std::make_unique<RedisBackend>(redis_settings(loc, o)));
}

struct Entry {
  const char* scheme;
  std::function<Result<std::unique_ptr<Backend>>(const BrokerLocation&, const BackendOptions&)>
      make;
};

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = {
      {"redis", redis},
      {"rediss", redis},
      {"redis+socket", redis},
      {"amqp", rabbitmq},
      {"amqps", rabbitmq},
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

namespace {

// merlin server's questions to its Redis, through the Redis adapter.
class RedisServerProbe : public server::ServerProbe {
 public:
  RedisServerProbe(const std::string& host, int port, const std::string& password)
      : admin_(host, port, password) {}
  Result<server::ServerFacts> facts() override {
    auto info = admin_.info();
    if (!info) return info.error();
    return server::parse_info(*info);
  }
  Result<void> shutdown() override { return admin_.shutdown_save(); }

 private:
  RedisAdmin admin_;
};

}  // namespace

server::ProbeFactory server_probes() {
  return [](const std::string& host, int port, const std::string& password) {
    return std::unique_ptr<server::ServerProbe>(new RedisServerProbe(host, port, password));
  };
}

}  // namespace merlin::cli
