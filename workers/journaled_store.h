#pragma once
/// A StateStore that also appends each new commit to a task journal (a distributed worker's
/// own file, see task_journals.h), for `merlin detailed-status`. The commit goes to the inner
/// store first: the journal is detail (worker, run time, return code), the inner store stays
/// the truth, so a journal that cannot be written is warned about once and does not stop the
/// worker.
#include <atomic>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/workspace/journal.h"

namespace merlin {

class JournaledStore : public StateStore {
 public:
  JournaledStore(StateStore& inner, JournalWriter& journal) : inner_(inner), journal_(journal) {}

  Result<CommitResult> commit(InstanceId instance, SampleId sample, Outcome outcome,
                              double seconds) override;
  void set_tuned(InstanceId instance, const tune::TuneShape& shape) override {
    inner_.set_tuned(instance, shape);
  }
  Result<CommitResult> commit_trial(InstanceId instance, SampleId task, Outcome outcome,
                                    double seconds, double value) override;
  Result<std::vector<SampleId>> pending_promotions(InstanceId instance) override {
    return inner_.pending_promotions(instance);
  }
  Result<std::vector<tune::TrialStanding>> standings(InstanceId instance) override {
    return inner_.standings(instance);
  }
  Result<bool> is_done(InstanceId instance, SampleId sample) override {
    return inner_.is_done(instance, sample);
  }
  Result<bool> is_complete(InstanceId instance) override { return inner_.is_complete(instance); }
  Result<bool> claim_release(InstanceId instance) override {
    return inner_.claim_release(instance);
  }
  Result<std::uint64_t> set_count(InstanceId instance, std::uint64_t count) override {
    return inner_.set_count(instance, count);
  }
  Result<void> forget_count(InstanceId instance) override { return inner_.forget_count(instance); }
  Result<std::vector<InstanceProgress>> progress() override { return inner_.progress(); }
  /// A commit made through Broker::finish: journalled as `commit` journals its own.
  void note_commit(InstanceId instance, SampleId sample, Outcome outcome,
                   double seconds) override {
    append({instance, sample, outcome, static_cast<float>(seconds)});
  }

  /// Appends a started record (WorkerOptions::on_start).
  void started(InstanceId instance, SampleId sample);

 private:
  void append(const JournalRecord& r);

  StateStore& inner_;
  JournalWriter& journal_;
  std::atomic<bool> warned_{false};
};

}  // namespace merlin
