#pragma once
/// The one place that names the concrete backends: which Backend serves a broker location,
/// by its URL scheme (see backends.cc's table). Every other file of the CLI and the run layer
/// works through merlin/broker/backend.h.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "merlin/broker/backend.h"
#include "merlin/broker/broker_location.h"
#include "merlin/server/server_probe.h"
#include "merlin/util/result.h"

namespace merlin::cli {

struct BackendOptions {
  /// Keep retrying the first connection within the retry budget (workers started before
  /// their server); otherwise a server that is not there fails at once.
  bool wait_for_server = false;
  /// A worker whose heartbeat is this old is dead: its tasks go back at once (run-workers
  /// --dead-after); unset: the adapter's default.
  std::optional<std::chrono::milliseconds> dead_after;
};

/// The backend for `loc`'s scheme; kRuntime for a scheme no backend serves (naming those that
/// are served). Connects lazily: no server is contacted here.
Result<std::unique_ptr<Backend>> open_backend(const BrokerLocation& loc,
                                              const BackendOptions& options = {});

/// The schemes served, for messages and docs ("redis", "redis+socket", ...).
std::vector<std::string> backend_schemes();

/// Defaults of the broker connection, for --help: how long commands retry a lost server and
/// how long one reply may take.
std::chrono::milliseconds default_retry_budget();
std::chrono::milliseconds default_reply_timeout();

/// What `merlin server` asks its Redis with (INFO, SHUTDOWN), through the Redis adapter.
server::ProbeFactory server_probes();

}  // namespace merlin::cli
