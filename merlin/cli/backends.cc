// The table of brokers: a new kind of broker is a folder in adapters/broker/ and a line here.
#include "merlin/cli/backends.h"

#include "adapters/broker/amqp/amqp_provider.h"
#include "adapters/broker/redis/redis_admin.h"
#include "adapters/broker/redis/redis_provider.h"

namespace merlin::cli {

const BrokerProviders& broker_providers() {
  static const BrokerProviders table({
      &redis_provider(),  // the first: where a command goes when no broker is named
      &amqp_provider(),
  });
  return table;
}

Result<std::unique_ptr<Backend>> open_backend(const BrokerLocation& loc,
                                              const BackendOptions& options) {
  auto opened = broker_providers().open(loc, options);
  if (opened || loc.source.kind == LocationSource::kDefault) return opened;
  // Say where the address (and the password, which a refusal may be about) was taken from:
  // MERLIN_BROKER_URL, --broker, an app.yaml, a workspace's run.env.
  Error e = opened.error();
  e.message += std::string(" (the broker") + (loc.password.empty() ? "" : " and its password") +
               " from " + loc.source.name + ")";
  return e;
}

std::vector<std::string> backend_schemes() { return broker_providers().schemes(); }

std::chrono::milliseconds default_retry_budget() { return kDefaultRetryBudget; }
std::chrono::milliseconds default_reply_timeout() { return kDefaultReplyTimeout; }

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
