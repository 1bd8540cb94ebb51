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
