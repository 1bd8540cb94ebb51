#pragma once
/// A whole Backend in this process, for unit tests of the run layer (the worker fleet,
/// queueing, recovery, restart's re-queue) without a server: per study an in-process LocalBroker
/// and LocalStateStore (handles share them, as a server's clients share its keys), and in-memory
/// study and worker registries and stop channel. The LocalBroker takes the test's clock.
#include <map>
#include <memory>
#include <mutex>

#include "adapters/broker/local/local_broker.h"
#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/broker/backend.h"

namespace merlin::testing {

class MemoryBackend : public Backend {
 public:
  explicit MemoryBackend(LocalBroker::Now now = [] { return Clock::now(); });

  BrokerKind kind() const override { return BrokerKind{"memory"}; }
  /// What a default location shows, unless set_location says otherwise.
  std::string location() const override { return location_; }
  void set_location(std::string location) { location_ = std::move(location); }
  std::unique_ptr<Broker> broker(const std::string& study_key, const std::string& consumer,
                                 std::chrono::milliseconds lease) override;
  std::unique_ptr<StateStore> store(const std::string& study_key) override;
  StudyRegistry& studies() override { return *studies_; }
  WorkerRegistry& workers() override { return *workers_; }
  StopChannel& stops() override { return *stops_; }
  Result<std::string> server_version() override { return std::string("memory"); }

  /// Stop requests sent to worker `id` through the registry (stop-workers), for assertions.
  bool stop_requested(const std::string& id);
  /// The worker records now (heartbeats).
  std::vector<WorkerRecord> workers_seen();

  struct Study {
    StudyRecord record;
    std::vector<std::string> queues;
    std::shared_ptr<LocalBroker> broker;
    std::shared_ptr<LocalStateStore> store;
    std::vector<StudyHalt> halts;
  };
  /// What the fakes share, under one mutex.
  struct Shared {
    std::mutex mu;
    LocalBroker::Now now;
    std::map<std::string, Study> studies;
    std::map<std::string, WorkerRecord> workers;
    std::map<std::string, bool> stop_requests;
  };

 private:
  std::string location_ = "redis://127.0.0.1:6379/0";
  std::shared_ptr<Shared> shared_;
  std::unique_ptr<StudyRegistry> studies_;
  std::unique_ptr<WorkerRegistry> workers_;
  std::unique_ptr<StopChannel> stops_;
};

}  // namespace merlin::testing
