#include "adapters/broker/amqp/amqp_provider.h"

namespace merlin {

BrokerProvider amqp_provider_description() {
  constexpr int kPort = 5672, kTlsPort = 5671;  // IANA's amqp and amqps
  BrokerProvider p;
  p.kind = kRabbitmqKind;
  p.title = "RabbitMQ";
  p.forms = {{"amqp", "", kPort, false, UrlPath::kVirtualHost},
             {"amqps", "", kTlsPort, true, UrlPath::kVirtualHost},
             {"pyamqp", "amqp", kPort, false, UrlPath::kVirtualHost}};
  // Merlin: rabbitmq and amqps are amqps (TLS, port 5671), amqp is plain.
  p.app_names = {
      {"rabbitmq", "amqps"}, {"amqps", "amqps"}, {"amqp", "amqp"}, {"pyamqp", "amqp", false}};
  p.needs_results_backend = true;
  p.url_help = "amqp[s]://user:password@host[:port]/vhost";
  p.flag_help = "RabbitMQ's amqp[s]://user:password@host[:port]/vhost";
  p.config_name = "rabbitmq";
  p.update_name = "rabbitmq";
  p.update_keys = {"username", "password", "server", "port", "vhost", "cert_reqs"};
  p.app_yaml = R"(# Where merlin's servers are: RabbitMQ holds the task queues, a Redis (the results
# backend) the progress, the study and worker registries and stops, as Merlin's sites run
# them. `merlin info` shows what is read here and checks both connections.
# MERLIN_BROKER_URL / --broker and MERLIN_RESULTS_BACKEND_URL / --results-backend replace
# these blocks.
broker:
    # rabbitmq (or amqps): AMQP over TLS, port 5671 by default; amqp: no TLS, port 5672.
    name: rabbitmq
    server: 127.0.0.1
    port: 5671
    vhost: /
    username: guest
    # The path of a file holding the password on its first line, readable only by you
    # (chmod 600).
    password: ~/.merlin/rabbit.pass
    # required: the server's certificate must verify against ca_certs (the system's CAs when
    # left out) and name the server; none: no check (Merlin's default).
    cert_reqs: required
    # ca_certs: ~/.merlin/ca.pem

results_backend:
    name: redis
    server: 127.0.0.1
    port: 6379
    db_num: 0
    # password: ~/.merlin/redis.pass
)";
  ;
  p.created_note =
      "wrote %s: a RabbitMQ broker on 127.0.0.1:5671 (TLS) and a Redis results backend on "
      "127.0.0.1:6379; edit it for your servers, then `merlin info` checks the connections\n";
  return p;
}

}  // namespace merlin
