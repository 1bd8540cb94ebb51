#pragma once
/// Where `merlin server` keeps its files: one directory (`./merlin_server` of the working
/// directory, as Merlin's `config_dir`, unless MERLIN_SERVER_DIR names another), private to
/// its owner (0700), every file in it 0600. The names are Merlin's
/// (merlin/server/merlin_server.yaml of LLNL Merlin). Relative paths in its redis.conf (`dir`
/// from `server config -d`) are relative to the directory that holds it, `base()`: for
/// `./merlin_server` the directory `merlin server init` ran in, as in Merlin.
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
  /// The directory holding `dir` (`dir` is absolute, without a trailing slash).
  std::string base() const {
    auto slash = dir.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
  }
  /// `path` from redis.conf as the server reads it: relative ones from base().
  std::string resolve(const std::string& path) const {
    return path.empty() || path[0] == '/' ? path : base() + "/" + path;
  }
};

/// merlin_server.yaml as `init` writes it: Merlin's `container` block with this build's
/// values (format `local`: Debian's redis-server run directly, no image) and the file names.
std::string merlin_server_yaml(const ServerFiles& files);

}  // namespace merlin::server
