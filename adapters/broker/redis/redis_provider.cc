#include "adapters/broker/redis/redis_provider.h"

namespace merlin {

BrokerProvider redis_provider_description() {
  constexpr int kPort = 6379;  // Redis's own default
  BrokerProvider p;
  p.kind = kRedisKind;
  p.title = "Redis";
  p.forms = {{"redis", "", kPort, false, UrlPath::kDatabase},
             {"rediss", "", kPort, true, UrlPath::kDatabase},
             {"redis+socket", "", kPort, false, UrlPath::kSocketPath},
             {"unix", "redis+socket", kPort, false, UrlPath::kSocketPath}};
  p.app_names = {{"redis", "redis"},
                 {"rediss", "rediss"},
                 {"redis+socket", "redis+socket"},
                 {"unix", "redis+socket", false}};
  p.url_help = "redis://[[user]:password@]host[:port][/db]";
  p.flag_help =
      "redis://[[user]:password@]host[:port][/db] (also [::1] hosts, %-encoded passwords, "
      "redis+socket:///path.sock?db=N, rediss:// over TLS with ?ssl_ca_certs=FILE)";
  p.config_name = "redis";
  p.update_name = "rediss";  // Merlin 1.13's MerlinConfigManager: a Redis is written as TLS
  p.update_keys = {"password", "server", "port", "db_num", "cert_reqs"};
  p.app_yaml =
      R"(# Where merlin's broker is: a Redis server. `merlin info` shows what is read here and
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
  ;
  p.created_note =
      "wrote %s: a Redis broker on 127.0.0.1:6379; edit it for your server, then `merlin info` "
      "checks the connection\n";
  return p;
}

}  // namespace merlin
