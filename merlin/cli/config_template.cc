#include "merlin/cli/config_template.h"

namespace merlin::cli {

std::string redis_app_yaml() {
  return R"(# Where merlin's broker is: a Redis server. `merlin info` shows what is read here and
# checks the connection. MERLIN_BROKER_URL or --broker replace this block.
broker:
    name: redis
    # The host name (or address) of the Redis server, and its port.
    server: 127.0.0.1
    port: 6379
    # The Redis database (0 to 15 on a default server).
    db_num: 0
    # A Redis ACL user; '' means the server's default user.
    username: ''
    # The password: the path of a file holding it on its first line, readable only by you
    # (chmod 600). Left out: no password is sent.
    # password: ~/.merlin/redis.pass
)";
}

}  // namespace merlin::cli

namespace merlin::cli {

std::string rabbitmq_app_yaml() {
  return R"(# Where merlin's servers are: RabbitMQ holds the task queues, a Redis (the results
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
}

}  // namespace merlin::cli
