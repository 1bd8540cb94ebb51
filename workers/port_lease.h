#pragma once
/// A TCP port for one task's ranks to meet on (MASTER_PORT, docs/training.md), free when it is
/// taken and held for the task: no two tasks of this user on this node get the same one.
///
/// The kernel picks a free port (bind to port 0); a lock file for that port, held while the
/// lease lives (flock), keeps the other workers of this user on the node from handing it out
/// again before the task's rank 0 binds it. Locks go with their holder, so a worker that dies
/// leaves nothing held; the directory keeps at most 1024 empty lock files.
#include <string>

#include "merlin/core/util/result.h"

namespace merlin {

class PortLease {
 public:
  /// A lease on a free port. `lock_dir`: where the lock files live (made 0700 when missing;
  /// refused unless it is our own directory, not a link). Errors name the directory or the
  /// socket call that failed.
  static Result<PortLease> take(const std::string& lock_dir);

  PortLease(PortLease&& other) noexcept;
  PortLease& operator=(PortLease&& other) noexcept;
  PortLease(const PortLease&) = delete;
  PortLease& operator=(const PortLease&) = delete;
  ~PortLease();

  int port() const { return port_; }

 private:
  PortLease(int port, int lock_fd) : port_(port), lock_fd_(lock_fd) {}
  int port_ = 0;
  int lock_fd_ = -1;
};

/// The lock directory of this user's port leases: `$TMPDIR/merlin-<uid>-ports` (/tmp without
/// TMPDIR). Node-local, as the ports are.
std::string port_lock_dir();

/// This host's name for the other nodes of a task (MERLIN_MASTER_ADDR): gethostname, read once.
const std::string& this_host();

}  // namespace merlin
