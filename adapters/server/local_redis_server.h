#pragma once
/// `merlin server`: a user-space Redis (Debian's redis-server binary) run from one private
/// directory (merlin/core/server/server_files.h). This class holds every side effect of the
/// command: the files (0600 in a 0700 directory), the process (started in its own session,
/// output to redis.log), the port check; what it asks the running server goes through a
/// ServerProbe. Not thread-safe; each call reads the files again, so two processes see each
/// other's changes.
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/server/process_file.h"
#include "merlin/core/server/redis_conf.h"
#include "merlin/core/server/server_files.h"
#include "merlin/core/server/server_probe.h"
#include "merlin/core/util/result.h"

namespace merlin::server {

enum class ServerState {
  kNotInitialized,  ///< no redis.conf
  kNotRunning,      ///< no process file, or its process is gone
  kRunning,         ///< the recorded process answers INFO with the password
  kNotAnswering,    ///< the recorded redis-server process lives but does not answer
};

struct ServerStatus {
  ServerState state = ServerState::kNotInitialized;
  ServerSettings settings;              ///< from redis.conf (not kNotInitialized)
  std::optional<ProcessRecord> record;  ///< kRunning, kNotAnswering
  ServerFacts facts;                    ///< kRunning
  std::string problem;                  ///< kNotAnswering: what the probe said
};

struct StartResult {
  /// Not "" when the server could not listen on redis.conf's address (the port is taken, the
  /// address is not this host's, the port is privileged): why, and the `merlin server config`
  /// flag that changes it. Nothing was started then.
  std::string address_problem;
  bool already_running = false;
  ProcessRecord record;
  std::vector<std::string> created;  ///< files init wrote first
};

class LocalRedisServer {
 public:
  LocalRedisServer(ServerFiles files, ProbeFactory probes);

  const ServerFiles& files() const { return files_; }

  /// Creates what is missing (the directory, redis.conf, redis.pass with a new password of 256
  /// bits from /dev/urandom, redis.users, merlin_server.yaml) and keeps what is there: an
  /// existing password is never replaced. Makes the directory 0700 and the files 0600 again.
  /// Returns the names of the files written.
  ///
  /// The password is in three places: redis.conf's `requirepass` (Merlin's line, and the one
  /// that decides), redis.pass (clients read it) and the users file's `default` line (what
  /// Redis reads: beside an `aclfile` it ignores `requirepass`). init and start make the other
  /// two follow `requirepass` (start), so a hand edit of it takes effect at the next start; init
  /// gives a redis.conf without the line redis.pass's password there.
  Result<std::vector<std::string>> init();

  /// redis.conf's settings; kBadInput when it is malformed, kRuntime when it cannot be read.
  Result<ServerSettings> settings() const;
  /// redis.pass's password.
  Result<std::string> password() const;

  Result<ServerStatus> status();

  /// init, then starts `redis_server` with redis.conf unless the server runs already, and
  /// waits until it answers INFO with the password (a server reading back a large AOF is
  /// waited for while it loads). A port it cannot listen on is `address_problem`. Errors: the
  /// server exited (kRuntime with the end of redis.log), no answer within `wait_seconds`.
  Result<StartResult> start(const std::string& redis_server, double wait_seconds = 30);

  /// SHUTDOWN SAVE (SIGTERM to a server that does not answer), then waits up to
  /// `wait_seconds` for the process to end and removes the process file. false: nothing was
  /// running (a stale process file is removed).
  Result<bool> stop(double wait_seconds = 60);

  /// init, then applies `change` to redis.conf and, when given, sets the password (redis.pass,
  /// redis.users and requirepass). Returns what changed, as "port 6400" (a password change says
  /// "password", never the password). Takes effect at the next start.
  Result<std::vector<std::string>> configure(const ConfigChange& change,
                                             const std::optional<std::string>& new_password);

  /// init, then gives `user` (not `default`: its password is --password's) `password` in the
  /// users file, adding it when missing. Returns whether the file changed. Takes effect at the
  /// next start, as the other settings.
  Result<bool> add_user(const std::string& user, const std::string& password);
  /// init, then removes `user` (not `default`) from the users file. false: it was not there.
  Result<bool> remove_user(const std::string& user);

 private:
  Result<RedisConf> read_conf() const;
  Result<std::string> read_users() const;
  /// Writes `pw` into redis.pass, the users file's default line and requirepass, where it
  /// differs. Returns whether any file changed.
  Result<bool> set_password(const std::string& pw);
  /// set_password(requirepass), or redis.pass's password when redis.conf has no such line.
  Result<void> follow_requirepass();

  ServerFiles files_;
  ProbeFactory probes_;
};

/// Writes `text` to `path` with mode 0600 (a temp file renamed into place: never a partial or
/// wider-readable file).
Result<void> write_private_file(const std::string& path, const std::string& text);

}  // namespace merlin::server
