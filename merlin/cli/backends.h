#pragma once
/// The one place that names the concrete backends: the table of broker providers (one line
/// per kind of broker, backends.cc). Every other file of the CLI and the run layer works
/// through merlin/core/broker/backend.h and merlin/core/broker/broker_provider.h.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/broker/backend.h"
#include "merlin/core/broker/broker_location.h"
#include "merlin/core/broker/broker_provider.h"
#include "merlin/core/server/server_probe.h"
#include "merlin/core/util/result.h"

namespace merlin::cli {

using merlin::BackendOptions;

/// The kinds of broker this build serves, one provider per adapter folder (backends.cc's
/// table): what parses URLs and app.yaml blocks and opens backends.
const BrokerProviders& broker_providers();

/// The backend for `loc` (broker_providers().open): kRuntime for a scheme no backend serves
/// (naming those that are served). Connects lazily: no server is contacted here.
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
