#pragma once
/// The in-process StateStore of `merlin run --local`: per instance a done set (IntervalSet,
/// O(gaps) memory), counts and run time, under one mutex. Every new commit is handed to an
/// optional sink (the workspace journal) before the commit returns, so a restart replays it.
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/tune/rung_book.h"
#include "merlin/core/util/interval_set.h"

namespace merlin {

class LocalStateStore : public StateStore {
 public:
  /// Called under the store's lock for each newly done sample; an error fails the commit.
  using CommitSink = std::function<Result<void>(InstanceId, SampleId, Outcome, double seconds)>;
  /// Called under the store's lock when a fan-out count is recorded; an error fails set_count.
  using CountSink = std::function<Result<void>(InstanceId, std::uint64_t count)>;
  /// Called under the store's lock with a tuned task's result, before its commit's sink call;
  /// an error fails the commit.
  using ValueSink = std::function<Result<void>(InstanceId, SampleId task, double value)>;

  /// `counts[i]` is the number of samples of instance i, kCountUnknown for a fan-out instance
  /// (set later by set_count).
  explicit LocalStateStore(const std::vector<std::uint64_t>& counts, CommitSink sink = nullptr,
                           CountSink count_sink = nullptr, ValueSink value_sink = nullptr);

  /// Makes `instance` a tuned one (docs/tuning.md): its commits go through a RungBook of
  /// `shape`, and the tasks below each trial's first rung are done (skipped) from now on.
  /// Call before any commit or restore of the instance.
  void set_tuned(InstanceId instance, const tune::TuneShape& shape) override;
  /// Replays a recorded trial result without calling the sinks: the task is done, and what it
  /// promoted and skipped is decided again, as when it was recorded.
  void restore_trial(InstanceId instance, SampleId task, double value);
  /// A tuned instance's trials as the leaderboard shows them; empty for any other instance.
  Result<std::vector<tune::TrialStanding>> standings(InstanceId instance) override;

  /// Replays a recorded commit without calling the sink. A success recorded after a failure
  /// of the same sample (a restart re-ran it) replaces the failure.
  void restore(InstanceId instance, SampleId sample, Outcome outcome, double seconds);
  /// Replays a recorded fan-out count without calling the sink. A count differing from the one
  /// restored before (a failed expansion, expanded again after a restart) replaces it and
  /// forgets the instance's samples restored so far: they belonged to the old expansion.
  void restore_count(InstanceId instance, std::uint64_t count);

  Result<CommitResult> commit(InstanceId instance, SampleId sample, Outcome outcome,
                              double seconds) override;
  Result<CommitResult> commit_trial(InstanceId instance, SampleId task, Outcome outcome,
                                    double seconds, double value) override;
  Result<std::vector<SampleId>> pending_promotions(InstanceId instance) override;
  Result<bool> is_done(InstanceId instance, SampleId sample) override;
  Result<bool> is_complete(InstanceId instance) override;
  Result<bool> claim_release(InstanceId instance) override;
  Result<std::uint64_t> set_count(InstanceId instance, std::uint64_t count) override;
  Result<void> forget_count(InstanceId instance) override;
  Result<std::vector<InstanceProgress>> progress() override;

  /// Forgets which instances were released (StudyRegistry::clear_releases): a restart
  /// releases the unfinished ones again.
  void clear_releases();
  /// Makes every failed sample unfinished again (StudyRegistry::reset_failed) and returns how
  /// many: it leaves the done set and the done and failed counts; its run time stays summed.
  /// Rebuilds the done set of each instance that had failures (O(its samples)).
  std::uint64_t reset_failed();

 private:
  struct Entry {
    IntervalSet done;
    InstanceProgress progress;
    bool released = false;
  };
  bool record_locked(InstanceId instance, SampleId sample, Outcome outcome, double seconds);

  std::mutex mu_;
  std::vector<Entry> entries_;
  std::set<std::pair<std::uint32_t, SampleId>> failed_;  ///< O(failures): restore, reset_failed
  Result<CommitResult> commit_locked(InstanceId instance, SampleId sample, Outcome outcome,
                                     double seconds);
  /// Records a trial result and its decisions (under mu_); sinks first, when `journal`.
  Result<CommitResult> trial_locked(InstanceId instance, SampleId task, Outcome outcome,
                                    double seconds, double value, bool journal);

  CommitSink sink_;
  CountSink count_sink_;
  ValueSink value_sink_;
  std::map<std::uint32_t, tune::RungBook> books_;  ///< tuned instances' rungs
};

}  // namespace merlin
