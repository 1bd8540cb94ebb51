#pragma once
/// The distributed mode's servers as one value: the task broker, each study's progress store,
/// the study registry, the worker registry and the stop channel. One implementation per kind
/// of broker (adapters/broker/<kind>/), opened by that kind's BrokerProvider
/// (merlin/core/broker/broker_provider.h), listed in one table (the CLI's wiring file, backends.cc);
/// the rest of merlin sees only these interfaces.
#include <chrono>
#include <memory>
#include <string>

#include "merlin/core/broker/broker.h"
#include "merlin/core/broker/broker_kind.h"
#include "merlin/core/broker/reservations.h"
#include "merlin/core/broker/state_store.h"
#include "merlin/core/broker/stop_channel.h"
#include "merlin/core/broker/study_registry.h"
#include "merlin/core/broker/worker_registry.h"
#include "merlin/core/util/result.h"

namespace merlin {

class Backend {
 public:
  virtual ~Backend() = default;
  /// Which kind of broker this is; its name is what a workspace's run record names (`broker=`).
  virtual BrokerKind kind() const = 0;
  /// Where it is, the password masked ("redis://:***@host:6379/0"): what messages and the run
  /// record (`broker_at=`) show.
  virtual std::string location() const = 0;
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
  /// A table of reservations of study `study` kept on this backend, for a broker that cannot
  /// say itself who holds which message (merlin/core/broker/reservations.h); null when this backend
  /// keeps none.
  virtual std::unique_ptr<ReservationTable> reservations(const std::string& study) {
    (void)study;
    return nullptr;
  }
  /// How long a study's zero pending count must last before its unfinished work counts as lost
  /// (run/study_recovery.h): a broker that cannot count a message between a worker's take and
  /// its record of it reads zero for that moment. 0: a zero is final.
  virtual std::chrono::milliseconds lost_recheck() const { return std::chrono::milliseconds(0); }
};

}  // namespace merlin
