#pragma once
/// The process side of `merlin server` (LocalRedisServer's helpers): finding redis-server,
/// starting it detached, telling whether a recorded pid is still our server, checking a port.
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "merlin/core/server/process_file.h"
#include "merlin/core/util/result.h"

namespace merlin::server {

/// Where redis-server is: $MERLIN_REDIS_SERVER when set, else the first `redis-server` on
/// PATH, as an absolute path. kRuntime naming the apt-get line when there is none.
Result<std::string> find_redis_server();

/// Starts `argv` in `dir`, in a session of its own (no terminal, no signals from the caller's
/// group), stdin from /dev/null, stdout and stderr appended to `log`, with LC_ALL=C. Inherited
/// descriptors without close-on-exec are closed in the child.
Result<pid_t> spawn_server(const std::vector<std::string>& argv, const std::string& log,
                           const std::string& dir);

/// Whether `pid` is a live redis-server process (a zombie counts as gone; a child of ours is
/// reaped).
bool redis_alive(long long pid);

/// Whether the redis-server `r.pid` is the one `start` recorded (its process title names the
/// recorded address, or its command line our redis.conf).
bool started_here(const ProcessRecord& r, const std::string& conf_path);

/// "" when a listener could bind `ip`:`port` now, else why not and the flag that changes it.
Result<std::string> check_port_free(const std::string& ip, int port);

/// The last lines of `path` after byte `offset`: what the server said before it exited.
std::string log_tail(const std::string& path, std::size_t offset);

std::string host_name();

}  // namespace merlin::server
