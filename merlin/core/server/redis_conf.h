#pragma once
/// `merlin server`'s redis.conf: generated once by `init`, edited by `merlin server config`,
/// read by `start`/`status` for where the server listens. Pure text functions, no file access.
///
/// The file is kept as its lines (comments and unknown directives untouched): `set` replaces a
/// directive's value in place, so a user's own edits survive `merlin server config`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::server {

/// redis.conf as lines. A directive is a line whose first word is its name (case-insensitive,
/// as Redis reads it); its value is the rest of the line, one pair of surrounding quotes
/// removed.
class RedisConf {
 public:
  static RedisConf parse(std::string_view text);

  /// The value of the last directive `key` (Redis applies the last one); nullopt if none.
  std::optional<std::string> get(std::string_view key) const;
  /// Sets `key` to `value`: the first directive `key` is rewritten (later ones are removed, so
  /// the value is not overridden), or a line is appended. `value` is written as given.
  void set(std::string_view key, std::string_view value);
  /// Removes every directive `key`.
  void erase(std::string_view key);

  std::string text() const;

 private:
  std::vector<std::string> lines_;
};

/// What the rest of `merlin server` needs from redis.conf.
struct ServerSettings {
  std::string bind = "127.0.0.1";  ///< the first address of `bind`
  int port = 6379;
  std::string dir;         ///< where the RDB and AOF go
  std::string users_file;  ///< `aclfile`: the users and their passwords
  std::string log_file;    ///< `logfile` ("" = stdout, which `start` sends to redis.log)
};

/// The settings of a redis.conf; kBadInput naming `conf_path` for a port that is no number in
/// 1..65535 or a missing `bind`/`port`/`dir`/`aclfile`.
Result<ServerSettings> read_settings(const RedisConf& conf, const std::string& conf_path);

/// The redis.conf `init` writes: Merlin's settings (loopback, protected mode, snapshots every
/// 300 s with 100 changes, AOF every second) for a server run in the foreground by `start`,
/// with data in `dir`, users (and so the password) in `users_file`, and no eviction (a
/// study's keys must never be dropped for memory).
std::string default_redis_conf(const std::string& dir, const std::string& users_file, int port);

/// The users file (Redis ACL format): the `default` user, on, with `password`, every key,
/// channel and command. `password` must pass check_password.
std::string users_file_text(const std::string& password);

/// A user name for the users file (`server config --add-user`): 1 to 64 of letters, digits
/// and `_ . @ -`. kBadInput saying why.
Result<void> check_user_name(std::string_view name);

/// The users file `text` with `user`'s line (`user NAME on >PASSWORD ~* &* +@all`: every key,
/// channel and command, as the default user) set to `password`: replaced where it is, added at
/// the end when it is not; the other lines kept as they are.
std::string users_with(std::string_view text, std::string_view user, std::string_view password);

/// The users file `text` without `user`'s line; `*found` says whether it had one.
std::string users_without(std::string_view text, std::string_view user, bool* found);

/// A password Redis's ACL file and its AUTH take: 1..512 printable characters, no space, none
/// of `#` `"` `'` `\\` (they would need quoting). kBadInput saying why.
Result<void> check_password(std::string_view password);

/// The first line of redis.pass, as the clients read it (trailing CR/LF and spaces removed).
std::string password_from_file(std::string_view text);

/// The changes `merlin server config` makes (Merlin's flags); unset fields are left alone.
struct ConfigChange {
  std::optional<std::string> bind;           ///< -ip/--ipaddress, --bind: an IPv4 address
  std::optional<int> port;                   ///< -p/--port
  std::optional<std::string> directory;      ///< -d/--directory: an absolute path
  std::optional<int> snapshot_seconds;       ///< -ss/--snapshot-seconds
  std::optional<int> snapshot_changes;       ///< -sc/--snapshot-changes
  std::optional<std::string> snapshot_file;  ///< -sf/--snapshot-file: a file name
  /// -am/--append-mode as written: always, everysec, no (parse_append_fsync decides).
  std::optional<std::string> append_mode;
  std::optional<std::string> append_file;  ///< -af/--append-file: a file name
  std::optional<std::string> max_memory;   ///< --max-memory: 0 (none) or N[kb|mb|gb]
  bool empty() const {
    return !bind && !port && !directory && !snapshot_seconds && !snapshot_changes &&
           !snapshot_file && !append_mode && !append_file && !max_memory;
  }
};

/// Checks every value of `change` (all problems at once, one per line): kBadInput.
Result<void> check_change(const ConfigChange& change);

/// Applies a checked change to `conf`. Snapshot seconds and changes replace `save`'s pair; the
/// one not given keeps its value (Merlin's defaults, 300 and 100, when there is none).
/// Returns the directives changed, as "port 6400", for the message.
std::vector<std::string> apply_change(RedisConf& conf, const ConfigChange& change);

}  // namespace merlin::server
