#include "merlin/core/server/append_fsync.h"

namespace merlin::server {

std::optional<AppendFsync> parse_append_fsync(std::string_view text) {
  for (auto mode : {AppendFsync::kAlways, AppendFsync::kEverysec, AppendFsync::kNo})
    if (text == append_fsync_name(mode)) return mode;
  return std::nullopt;
}

std::string_view append_fsync_name(AppendFsync mode) {
  switch (mode) {
    case AppendFsync::kAlways:
      return "always";
    case AppendFsync::kEverysec:
      return "everysec";
    case AppendFsync::kNo:
      return "no";
  }
  return "";
}

}  // namespace merlin::server
