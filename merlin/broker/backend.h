#pragma once
/// The distributed mode's servers as one value: the task broker, each study's progress store,
/// the study registry, the worker registry and the stop channel. One implementation per kind
/// of broker (adapters/broker/<kind>/), chosen by the broker URL's scheme in one table (the
/// CLI's wiring file, backends.cc); the rest of merlin sees only these interfaces.
#include <chrono>
#include <memory>
#include <string>

#include "merlin/broker/broker.h"
#include "merlin/broker/state_store.h"
#include "merlin/broker/stop_channel.h"
#include "merlin/broker/study_registry.h"
#include "merlin/broker/worker_registry.h"
#include "merlin/util/result.h"

namespace merlin {

class Backend {
 public:
  virtual ~Backend() = default;
  /// "redis": what a workspace's run record names (`broker=`).
  virtual std::string kind() const = 0;
  /// A handle on the queues of study `study_key` for worker `consumer`: a reserved task not
  /// renewed within `lease` goes to another worker.
  virtual std::unique_ptr<Broker> broker(const std::string& study_key, const std::string& consumer,
                                         std::chrono::milliseconds lease) = 0;
  /// The progress of study `study_key` (thread-safe: shared by a process's workers).
  virtual std::unique_ptr<StateStore> store(const std::string& study_key) = 0;
  virtual StudyRegistry& studies() = 0;
  virtual WorkerRegistry& workers() = 0;
  virtual StopChannel& stops() = 0;
  /// "redis 7.0.15": what answers, as `merlin info`'s connection check.
  virtual Result<std::string> server_version() = 0;
};

}  // namespace merlin
