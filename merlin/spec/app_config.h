#pragma once
/// Merlin's `~/.merlin/app.yaml`: where the broker and results backend live. Only the keys
/// this implementation uses are read (`name`, `server`, `port`, `username`, `password` — the
/// path of a file holding it — and `db_num`); the others Merlin's `merlin config create`
/// writes (Celery's block, `encryption_key`, `cert_reqs`, `vhost`, ...) are accepted and
/// listed in `ignored`, so a Merlin user's file works unchanged and the user is told.
#include <string>
#include <vector>

#include "merlin/util/result.h"

namespace merlin::spec {

struct AppServer {
  bool present = false;
  std::string name;           ///< "redis", "rabbitmq", ...
  std::string server;         ///< host name
  int port = 0;               ///< 0: the scheme's default
  std::string username;       ///< may be empty
  std::string password_file;  ///< as written (may start with "~/")
  int db = -1;                ///< `db_num`; -1: not given
};

struct AppConfig {
  std::string path;  ///< the file read ("" when there was none)
  AppServer broker, results_backend;
  /// Keys read and not used, as "broker.vhost" or "celery" (a whole block), in file order.
  std::vector<std::string> ignored;
};

/// Reads `path`. A missing file is no error (an empty AppConfig); a malformed one is bad input
/// naming `file:line:col`.
Result<AppConfig> read_app_config(const std::string& path);

}  // namespace merlin::spec
