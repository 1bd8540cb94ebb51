#include "adapters/broker/amqp/amqp_provider.h"

#if MERLIN_HAVE_RABBITMQ
#include "adapters/broker/amqp/amqp_backend.h"
#endif

namespace merlin {
namespace {

// RabbitMQ for the tasks, the Backend of `loc.results` for the rest (progress, registries,
// stops, reservations).
Result<std::unique_ptr<Backend>> open_amqp(const BrokerLocation& loc, const BackendOptions& o,
                                           const BrokerProviders& all) {
#if !MERLIN_HAVE_RABBITMQ
  (void)o;
  (void)all;
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
  auto results = all.open(*loc.results, o);
  if (!results) return results.error();
  Backend* store = results->get();
  if (!store->reservations(""))
    return Error::bad_input("the results backend " + loc.results->display() +
                            " keeps no reservations: it must be a Redis");
  auto retry = o.wait_for_server ? loc.results->retry_budget.value_or(kDefaultRetryBudget)
                                 : std::chrono::milliseconds(0);
  return std::unique_ptr<Backend>(std::make_unique<AmqpBackend>(
      a, retry, std::move(*results),
      [store](const std::string& study) { return store->reservations(study); }, loc.display()));
#endif
}

}  // namespace

const BrokerProvider& amqp_provider() {
  static const BrokerProvider p = [] {
    BrokerProvider d = amqp_provider_description();
    d.open = open_amqp;
    return d;
  }();
  return p;
}

}  // namespace merlin
