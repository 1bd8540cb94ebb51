#pragma once
/// Durable per-instance progress: a remaining count and a done set per step instance, so that
/// a duplicate completion never double-counts and the commit that reaches zero is unique.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/study/ids.h"
#include "merlin/core/tune/rung_book.h"
#include "merlin/core/util/result.h"

namespace merlin {

/// How a task ended, as recorded.
enum class Outcome : std::uint8_t {
  kSuccess = 0,
  kSoftFail = 1,
  kHardFail = 2,
  kStopped = 3,  ///< MERLIN_STOP_WORKERS: finished, and the workers were told to stop
  /// Ended by merlin after its `walltime` and not run again (no `restart:` command, or its
  /// retries spent): a failed sample, as a soft fail (docs/user-guide.md).
  kTimedOut = 4,
  /// A tuned trial's task that will never run: the trial was not promoted to its rung
  /// (docs/tuning.md). Done, not failed.
  kSkipped = 5,
};

/// Whether a sample that ended so counts as failed (status, the failed bits, the exit code).
inline bool is_failure(Outcome o) {
  return o == Outcome::kSoftFail || o == Outcome::kHardFail || o == Outcome::kTimedOut;
}

/// Which samples of an instance are done, and which of those failed: bit s is byte s/8, mask
/// 0x80 >> s%8 (sample 0 is the high bit of byte 0); missing bytes are 0.
struct SampleBits {
  std::string done, failed;
  bool is_done(SampleId s) const { return bit(done, s); }
  bool is_failed(SampleId s) const { return bit(failed, s); }
  static bool bit(const std::string& bits, SampleId s) {
    auto byte = s / 8;
    return byte < bits.size() && (static_cast<unsigned char>(bits[byte]) & (0x80u >> (s % 8)));
  }
};

struct CommitResult {
  bool newly_done = false;      ///< false: this sample was committed before (a duplicate run)
  std::uint64_t remaining = 0;  ///< samples of the instance still not done, after this commit
  /// A tuned instance's tasks this commit promoted (docs/tuning.md): to queue. Empty for
  /// every other instance.
  std::vector<SampleId> promoted;
};

/// Counts for `status`, per instance.
struct InstanceProgress {
  std::uint64_t total = 0, done = 0, failed = 0;
  double seconds = 0;  ///< summed run time of the done samples
  /// False for a fan-out instance not released yet: `total` is 0 and means nothing.
  bool count_known = true;
  /// Every sample is done (an instance whose count is unknown is not).
  bool finished() const { return count_known && done >= total; }
  /// The tasks to wait for, for sums of "done of total": `total`, or 1 while the count is
  /// unknown (at least one task is still to come).
  std::uint64_t expected() const { return count_known ? total : 1; }
};

class StateStore {
 public:
  virtual ~StateStore() = default;
  /// Marks `sample` of `instance` done (atomically: set-if-unset + decrement). Thread-safe.
  virtual Result<CommitResult> commit(InstanceId instance, SampleId sample, Outcome outcome,
                                      double seconds) = 0;
  virtual Result<bool> is_done(InstanceId instance, SampleId sample) = 0;
  virtual Result<bool> is_complete(InstanceId instance) = 0;
  /// True for the first caller only: guards releasing an instance's work once.
  virtual Result<bool> claim_release(InstanceId instance) = 0;
  /// Records the sample count of an instance whose count was unknown at the start (a fan-out
  /// step, docs/fanout.md) if none is recorded yet, and returns the recorded one: the first
  /// caller's count wins, later (redelivered, restarted) calls change nothing. Atomic,
  /// thread-safe. Until then the instance is not complete and takes no commit. Unsupported
  /// (kRuntime) unless a store says otherwise; for an instance whose count is fixed it returns
  /// that count.
  virtual Result<std::uint64_t> set_count(InstanceId instance, std::uint64_t count) {
    return Error::runtime("this progress store cannot record fan-out counts (instance " +
                          std::to_string(instance.v) + ", " + std::to_string(count) + " rows)");
  }
  /// Makes an instance's count unknown again and forgets its samples (a fan-out instance
  /// whose file could not be read: `merlin restart` expands it again). Not thread-safe with
  /// work on that instance: for a restart, with no worker serving it. Unsupported (kRuntime)
  /// unless a store says otherwise.
  virtual Result<void> forget_count(InstanceId instance) {
    return Error::runtime("this progress store cannot forget counts (instance " +
                          std::to_string(instance.v) + ")");
  }
  /// Tells the store that `instance` is tuned with `shape` (docs/tuning.md), before its
  /// first commit: from then on its commits decide promotions. Idempotent. Does nothing by
  /// default (such a store commits tuned tasks as plain ones: it cannot run a search).
  virtual void set_tuned(InstanceId instance, const tune::TuneShape& shape) {}
  /// Commits task `task` of a tuned instance (docs/tuning.md) with its result `value` (NaN:
  /// none), and decides in the same atomic step what the result promotes (returned in
  /// `promoted`) and which tasks will never run (committed as kSkipped). A plain `commit` of
  /// a tuned task is this with NaN. For any other instance (and by default) it is `commit`.
  virtual Result<CommitResult> commit_trial(InstanceId instance, SampleId task, Outcome outcome,
                                            double seconds, double value) {
    return commit(instance, task, outcome, seconds);
  }
  /// A tuned instance's tasks that were promoted and are not done yet (queued, running, or
  /// lost with a worker that died between a commit and its publish): what a restart or a
  /// redelivery queues again. Empty by default.
  virtual Result<std::vector<SampleId>> pending_promotions(InstanceId instance) {
    return std::vector<SampleId>{};
  }
  /// A tuned instance's trials, in trial order (the leaderboard, best.json). Empty by default.
  virtual Result<std::vector<tune::TrialStanding>> standings(InstanceId instance) {
    return std::vector<tune::TrialStanding>{};
  }
  /// A new commit of `sample` was made on this store's data by another way than `commit`
  /// (Broker::finish: commit, publish and ack in one server call): a wrapper that records
  /// commits (JournaledStore) records it. Does nothing by default.
  virtual void note_commit(InstanceId instance, SampleId sample, Outcome outcome, double seconds) {}
  virtual Result<std::vector<InstanceProgress>> progress() = 0;
  /// Instance `instance`'s done and failed samples as bitmaps (`merlin detailed-status`).
  /// Unsupported (kRuntime) unless a store says otherwise.
  virtual Result<SampleBits> sample_bits(InstanceId instance) {
    return Error::runtime("this progress store cannot list samples");
  }
};

}  // namespace merlin
