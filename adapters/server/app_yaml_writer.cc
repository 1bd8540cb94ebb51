#include "adapters/server/app_yaml_writer.h"

#include "adapters/server/local_redis_server.h"
#include "merlin/core/server/app_yaml_blocks.h"
#include "merlin/core/util/files.h"

namespace merlin::server {

Result<AppYamlUpdate> point_app_yaml(const std::string& path, const std::string& host, int port,
                                     const std::string& pass_file) {
  AppYamlUpdate update;
  std::string old;
  if (files::exists(path)) {
    auto text = files::read(path);
    if (!text) return text.error();
    old = *text;
  } else if (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0) {
    auto made = files::make_dirs(path.substr(0, slash));
    if (!made) return made.error();
  }
  std::string text = replace_top_level_blocks(old, server_blocks(host, port, pass_file));
  if (text == old) return update;
  const bool had_broker =
      old.find("broker") != std::string::npos || old.find("results_backend") != std::string::npos;
  if (had_broker && !files::exists(path + ".bak")) {
    auto w = write_private_file(path + ".bak", old);
    if (!w) return w.error();
    update.backup = path + ".bak";
  }
  auto w = write_private_file(path, text);
  if (!w) return w.error();
  update.changed = true;
  return update;
}

}  // namespace merlin::server
