#pragma once
/// The Backend with RabbitMQ as the broker and another backend (Redis) as the results
/// backend, as Merlin's sites run it: task messages in RabbitMQ queues (AmqpBroker); progress,
/// reservations, the study and worker registries and the stop channel on the results backend.
/// The study registry is split the same way (AmqpStudies): what a study is and how far it got
/// from the results backend, what waits in its queues from RabbitMQ.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "adapters/broker/amqp/amqp_connection.h"
#include "adapters/broker/amqp/amqp_provider.h"
#include "adapters/broker/amqp/amqp_session.h"
#include "merlin/core/broker/backend.h"
#include "merlin/core/broker/reservations.h"

namespace merlin {

/// A study's reservation table on the results backend.
using ReservationsOf = std::function<std::unique_ptr<ReservationTable>(const std::string& study)>;

/// The StudyRegistry of a RabbitMQ broker. `enqueue` publishes the study's messages first
/// (every one confirmed) and registers the study on the results backend after: a study is
/// seen by workers only once all of it is queued; a failed registration deletes the queues
/// again. A `merlin run` killed between the two leaves queues no registered study names
/// (RabbitMQ's own tools list them: merlin.<study>.*).
class AmqpStudies : public StudyRegistry {
 public:
  AmqpStudies(AmqpSettings settings, std::chrono::milliseconds retry_budget, StudyRegistry& results,
              ReservationsOf reservations);

  Result<void> enqueue(const StudyEnqueue& study) override;
  Result<std::vector<StudyRecord>> list() override { return results_.list(); }
  Result<std::vector<StudyRecord>> list_named(const std::string& name) override {
    return results_.list_named(name);
  }
  /// Ready messages in the study's queues and delay queues, plus its reservations.
  Result<std::uint64_t> pending(const std::string& study_key) override;
  Result<std::vector<QueueStats>> queue_stats(const std::string& study_key) override;
  Result<std::vector<std::uint32_t>> running(const std::string& study_key,
                                             std::size_t instances) override;
  /// Purges the queues' ready and delayed messages and forgets their reservations (a worker
  /// running one finishes it; nothing queues it again).
  Result<std::uint64_t> purge_queues(const std::string& study_key,
                                     const std::vector<std::string>& queues) override;
  Result<void> set_purged(const std::string& study_key, bool purged) override {
    return results_.set_purged(study_key, purged);
  }
  Result<void> clear_releases(const std::string& study_key) override {
    return results_.clear_releases(study_key);
  }
  Result<std::uint64_t> reset_failed(const std::string& study_key, std::size_t instances) override {
    return results_.reset_failed(study_key, instances);
  }
  /// Deletes the study's queues, then everything of it on the results backend.
  Result<std::uint64_t> forget(const std::string& study_key) override;

  /// "RabbitMQ 3.10.8".
  Result<std::string> server_version();

 private:
  AmqpSettings settings_;
  std::chrono::milliseconds retry_budget_;
  StudyRegistry& results_;
  ReservationsOf reservations_;
  AmqpSession session_;
};

/// RabbitMQ counts neither a message between a worker's get and its reservation being recorded
/// nor one being published again: a study's zero pending count is read again this much later
/// before its work counts as lost (merlin/run/study_recovery.h).
inline constexpr std::chrono::milliseconds kAmqpLostRecheck{250};

class AmqpBackend : public Backend {
 public:
  /// `location`: the broker as messages show it (masked).
  AmqpBackend(AmqpSettings settings, std::chrono::milliseconds retry_budget,
              std::unique_ptr<Backend> results, ReservationsOf reservations,
              std::string location = "");

  BrokerKind kind() const override { return kRabbitmqKind; }
  std::string location() const override { return location_; }
  std::chrono::milliseconds lost_recheck() const override { return kAmqpLostRecheck; }
  std::unique_ptr<Broker> broker(const std::string& study_key, const std::string& consumer,
                                 std::chrono::milliseconds lease) override;
  std::unique_ptr<StateStore> store(const std::string& study_key) override {
    return results_->store(study_key);
  }
  StudyRegistry& studies() override { return studies_; }
  WorkerRegistry& workers() override { return results_->workers(); }
  StopChannel& stops() override { return results_->stops(); }
  /// "RabbitMQ 3.10.8; results: redis 7.0.15".
  Result<std::string> server_version() override;

 private:
  AmqpSettings settings_;
  std::chrono::milliseconds retry_budget_;
  std::unique_ptr<Backend> results_;
  ReservationsOf reservations_;
  AmqpStudies studies_;
  std::string location_;
};

}  // namespace merlin
