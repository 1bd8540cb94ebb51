#pragma once
/// The studies queued on one Redis server, so that `run-workers`, `status`, `queue-info`,
/// `purge` and `monitor` find them from a spec's name. Keys: the sorted set "merlin:studies"
/// (study key by creation time) and per study the hash "merlin:<study>:meta" (workspace, name,
/// created). Studies never touch each other's keys.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "adapters/broker/redis/redis_settings.h"
#include "merlin/core/broker/study_registry.h"
#include "merlin/core/util/result.h"

namespace merlin {

class RedisStudies : public StudyRegistry {
 public:
  /// `settings.study_key` is not used: every call names its study.
  explicit RedisStudies(RedisSettings settings);

  /// Registers the study, records its counts, marks the released instances and queues the
  /// messages, in one Lua script: all of it or (error, server gone) none of it. Fails if a
  /// study of that key is registered already.
  Result<void> enqueue(const StudyEnqueue& study) override;
  /// Every registered study, oldest first.
  Result<std::vector<StudyRecord>> list() override;
  /// The studies named `name`: only the meta of keys starting "<name>_" is read, so a user
  /// whose ACL reaches those studies' keys alone is never refused.
  Result<std::vector<StudyRecord>> list_named(const std::string& name) override;
  /// Queued + delayed + in-flight messages over every queue of the study: 0 means no more work
  /// can appear (dependents are published before a task is acked).
  Result<std::uint64_t> pending(const std::string& study_key) override;
  Result<std::vector<QueueStats>> queue_stats(const std::string& study_key) override;
  /// Single samples reserved by workers now (running, or about to), per instance id: read
  /// from the pending lists of the study's leaf Streams, O(tasks in flight).
  Result<std::vector<std::uint32_t>> running(const std::string& study_key,
                                             std::size_t instances) override;
  /// Removes the study's messages (queued, reserved and delayed) of `queues` (all when
  /// empty), keeping its progress; returns how many messages were removed.
  Result<std::uint64_t> purge_queues(const std::string& study_key,
                                     const std::vector<std::string>& queues) override;
  /// Marks the study purged (its messages removed on purpose) or not: a purged study with
  /// unfinished work is not reported as lost by workers and `monitor`.
  Result<void> set_purged(const std::string& study_key, bool purged) override;
  /// Forgets which instances were released (restart re-releases the unfinished ones).
  Result<void> clear_releases(const std::string& study_key) override;
  /// Makes every failed sample unfinished again (restart runs failed tasks again, as a local
  /// restart does); returns how many. O(failed samples), in one script.
  Result<std::uint64_t> reset_failed(const std::string& study_key,
                                     std::size_t instances) override;
  /// Removes every key of the study and its registration; returns the number of keys.
  Result<std::uint64_t> forget(const std::string& study_key) override;
  /// "redis_version" of the server, as a connectivity check.
  Result<std::string> server_version();

 private:
  /// The registered studies whose key starts with `key_prefix` ("" : all), oldest first.
  Result<std::vector<StudyRecord>> list_keyed(const std::string& key_prefix);

  RedisSettings settings_;
};

}  // namespace merlin
