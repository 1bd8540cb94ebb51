#pragma once
/// The StateStore on Redis, shared by every worker of a study. Per instance a done bitmap
/// ("merlin:<study>:done:<inst>", one bit per sample: 125 kB per million samples), and fields
/// of the hashes total, remaining, failed, secs and released. `commit` is one Lua script
/// (SETBIT returns the old bit; only a 0 → 1 change decrements `remaining` and adds the
/// failure and seconds), so a duplicate completion never double-counts and exactly one commit
/// sees remaining reach 0. Samples ids must be < 2^32 (Redis bitmaps stop at 512 MB).
/// Thread-safe: each call borrows a pooled connection.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "adapters/broker/redis/redis_pool.h"
#include "adapters/broker/redis/redis_script.h"
#include "merlin/core/broker/state_store.h"

namespace merlin {

class RedisStateStore : public StateStore {
 public:
  explicit RedisStateStore(RedisSettings settings);

  /// Fails (kRuntime) for an instance the study's enqueue did not record.
  Result<CommitResult> commit(InstanceId instance, SampleId sample, Outcome outcome,
                              double seconds) override;
  Result<bool> is_done(InstanceId instance, SampleId sample) override;
  /// Remaining == 0; false for an unknown instance.
  Result<bool> is_complete(InstanceId instance) override;
  Result<bool> claim_release(InstanceId instance) override;
  /// One script (kSetCount): total and remaining are set only while total is 'u'.
  Result<std::uint64_t> set_count(InstanceId instance, std::uint64_t count) override;
  /// One script (kForgetCount).
  Result<void> forget_count(InstanceId instance) override;
  /// One HGETALL per hash: O(instances), independent of the number of samples.
  Result<std::vector<InstanceProgress>> progress() override;

  /// The done and failed bitmaps as stored (Redis bit order is SampleBits's): one pipelined
  /// pair of GETs, 125 kB per million samples.
  Result<SampleBits> sample_bits(InstanceId instance) override;

  /// Tuned instances (docs/tuning.md): their commits are one script, kTuneCommit, which
  /// follows the RungBook's rules on the server, so any number of workers tune at once and
  /// every promotion is decided once.
  void set_tuned(InstanceId instance, const tune::TuneShape& shape) override;
  Result<CommitResult> commit_trial(InstanceId instance, SampleId task, Outcome outcome,
                                    double seconds, double value) override;
  /// One script (kTunePending).
  Result<std::vector<SampleId>> pending_promotions(InstanceId instance) override;
  /// From the results and stops recorded: one pipeline of three HGETALLs.
  Result<std::vector<tune::TrialStanding>> standings(InstanceId instance) override;

  const RedisSettings& settings() const { return pool_.settings(); }

 private:
  RedisPool pool_;
  RedisKeys keys_;
  RedisScript commit_script_;
  RedisScript set_count_script_;
  RedisScript forget_count_script_;
  RedisScript tune_commit_script_;
  RedisScript tune_pending_script_;
  std::mutex tuned_mu_;
  std::map<std::uint32_t, tune::TuneShape> tuned_;  ///< set_tuned's shapes
  /// The shape of a tuned instance, if set_tuned named it.
  std::optional<tune::TuneShape> tuned(InstanceId instance);
};

}  // namespace merlin
