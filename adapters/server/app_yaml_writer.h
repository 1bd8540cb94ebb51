#pragma once
/// Points an app.yaml at `merlin server`'s Redis (the file side of
/// merlin/core/server/app_yaml_blocks.h).
#include <string>

#include "merlin/core/util/result.h"

namespace merlin::server {

struct AppYamlUpdate {
  bool changed = false;  ///< false: it pointed at the server already
  std::string backup;    ///< the copy of the file as it was, when one was made now
};

/// Sets `path`'s `broker` and `results_backend` to host:port with the password file, keeping
/// every other line; creates the file (and its directory) when missing. The file is written
/// 0600. The first time a file with other broker settings is changed, its previous text is
/// kept as `path.bak` (0600; an existing .bak is never replaced: it holds the user's own).
Result<AppYamlUpdate> point_app_yaml(const std::string& path, const std::string& host, int port,
                                     const std::string& pass_file);

}  // namespace merlin::server
