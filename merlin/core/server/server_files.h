#pragma once
/// Where `merlin server` keeps its files: one directory (`~/.merlin/server` unless
/// MERLIN_SERVER_DIR names another), private to its owner (0700), every file in it 0600.
/// The names are Merlin's (merlin/server/merlin_server.yaml of LLNL Merlin).
#include <string>

namespace merlin::server {

struct ServerFiles {
  std::string dir;

  std::string merlin_config() const { return dir + "/merlin_server.yaml"; }  ///< names the files
  std::string redis_conf() const { return dir + "/redis.conf"; }
  std::string pass_file() const { return dir + "/redis.pass"; }    ///< the password, one line
  std::string users_file() const { return dir + "/redis.users"; }  ///< Redis ACL users
  std::string process_file() const { return dir + "/merlin_server.pf"; }  ///< the running pid
  std::string log_file() const { return dir + "/redis.log"; }
  std::string app_yaml() const { return dir + "/app.yaml"; }  ///< Merlin's: points at it
};

/// merlin_server.yaml as `init` writes it: Merlin's `container` block with this build's
/// values (format `local`: Debian's redis-server run directly, no image) and the file names.
std::string merlin_server_yaml(const ServerFiles& files);

}  // namespace merlin::server
