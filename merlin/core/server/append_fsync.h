#pragma once
/// When Redis syncs its append-only file: redis.conf's `appendfsync`, which `merlin server
/// config --append-mode` sets. The words are read and written here only.
#include <optional>
#include <string_view>

namespace merlin::server {

enum class AppendFsync { kAlways, kEverysec, kNo };

/// "always", "everysec" or "no", exactly as redis.conf spells them; nullopt for anything else.
std::optional<AppendFsync> parse_append_fsync(std::string_view text);

/// The word redis.conf takes for `mode`.
std::string_view append_fsync_name(AppendFsync mode);

/// "always, everysec, no": the words, for messages.
inline constexpr std::string_view kAppendFsyncNames = "always, everysec, no";

}  // namespace merlin::server
