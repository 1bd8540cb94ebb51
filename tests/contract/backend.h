#pragma once
/// The brokers and state stores the contract suite runs against, behind one small interface:
/// "local" (in-process) always, "redis" (a private redis-server) when built with Redis.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "merlin/core/broker/broker.h"
#include "merlin/core/broker/state_store.h"

namespace merlin::testing {

class Backend {
 public:
  virtual ~Backend() = default;
  /// "" when ready; otherwise why the suite must skip (no redis-server, ...).
  virtual std::string setup() = 0;
  /// A broker handle for worker `consumer`; all handles share the same queues.
  virtual std::shared_ptr<Broker> broker(const std::string& consumer = "a") = 0;
  /// The study's state store, with `counts[i]` samples in instance i.
  virtual std::shared_ptr<StateStore> store(const std::vector<std::uint64_t>& counts) = 0;
  /// Drops every queue, delayed message and counter of the study through the backend's own
  /// purge; how many keys went. Handles taken afterwards see an empty study. Only when
  /// has_purge().
  virtual std::uint64_t purge() = 0;
  /// Whether the backend has a purge of its own (the local one lives and ends with its
  /// process: `merlin purge` has nothing to drop there).
  virtual bool has_purge() const = 0;
  /// Whether unacked messages are taken over after `lease()` (false: held until released).
  virtual bool has_leases() const = 0;
  virtual std::chrono::milliseconds lease() const { return std::chrono::milliseconds(200); }
  /// Puts text that is not an encoded message on `queue`; false if the backend cannot hold
  /// raw text (the local broker keeps decoded messages).
  virtual bool inject_raw(const std::string& queue, const std::string& text) = 0;
};

/// "local", "redis" or "rabbitmq".
std::unique_ptr<Backend> make_backend(const std::string& name);
/// The backends this build can run.
std::vector<std::string> backend_names();

}  // namespace merlin::testing
