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
#include "merlin/broker/task_message.h"
#include "merlin/util/result.h"

namespace merlin {

struct StudyRecord {
  std::string key;        ///< "<name>_<timestamp>": the workspace's directory name
  std::string workspace;  ///< absolute path on the shared file system
  std::string name;       ///< description.name after token substitution
  std::int64_t created = 0;
};

/// What a new study puts into Redis.
struct StudyEnqueue {
  StudyRecord record;
  std::vector<std::uint64_t> counts;    ///< samples per instance
  std::vector<std::string> queues;      ///< every queue of the study's steps
  std::vector<std::uint32_t> released;  ///< instances whose whole range is queued now
  std::vector<std::pair<std::string, TaskMessage>> messages;  ///< (queue, message)
};

/// A stop a step asked for with its return code, told to every worker process of the study:
/// MERLIN_HARD_FAIL stops `queue`, MERLIN_STOP_WORKERS (`all`) stops the processes.
struct StudyHalt {
  std::string queue, step, by;  ///< `by`: the worker id that saw the return code
  bool all = false;
};

/// Per queue of a study, for `queue-info`.
struct QueueStats {
  std::string queue;
  std::uint64_t queued = 0, reserved = 0, delayed = 0, consumers = 0;
};

class RedisStudies {
 public:
  /// `settings.study_key` is not used: every call names its study.
  explicit RedisStudies(RedisSettings settings);

  /// Registers the study, records its counts, marks the released instances and queues the
  /// messages, in one Lua script: all of it or (error, server gone) none of it. Fails if a
  /// study of that key is registered already.
  Result<void> enqueue(const StudyEnqueue& study);
  /// Every registered study, oldest first.
  Result<std::vector<StudyRecord>> list();
  /// Queued + delayed + in-flight messages over every queue of the study: 0 means no more work
  /// can appear (dependents are published before a task is acked).
  Result<std::uint64_t> pending(const std::string& study_key);
  Result<std::vector<QueueStats>> queue_stats(const std::string& study_key);
  /// Single samples reserved by workers now (running, or about to), per instance id: read
  /// from the pending lists of the study's leaf Streams, O(tasks in flight).
  Result<std::vector<std::uint32_t>> running(const std::string& study_key, std::size_t instances);
  /// Removes the study's messages (queued, reserved and delayed) of `queues` (all when
  /// empty), keeping its progress; returns how many messages were removed.
  Result<std::uint64_t> purge_queues(const std::string& study_key,
                                     const std::vector<std::string>& queues);
  /// Forgets which instances were released (restart re-releases the unfinished ones).
  Result<void> clear_releases(const std::string& study_key);
  /// Makes every failed sample unfinished again (restart runs failed tasks again, as a local
  /// restart does); returns how many. O(failed samples), in one script.
  Result<std::uint64_t> reset_failed(const std::string& study_key, std::size_t instances);
  /// Removes every key of the study and its registration; returns the number of keys.
  Result<std::uint64_t> forget(const std::string& study_key);
  /// Appends a halt to the study's Stream "merlin:<study>:halts" (ids are the server's, so
  /// ordered across hosts without trusting their clocks).
  Result<void> halt(const std::string& study_key, const StudyHalt& h);
  /// The server's clock now, as a Stream id: a process takes it when it starts and obeys only
  /// the halts after it (new workers resume a stopped queue, as Merlin's do).
  Result<std::string> clock_mark();
  /// Halts after `mark`, oldest first; advances `mark` past them.
  Result<std::vector<StudyHalt>> halts_since(const std::string& study_key, std::string& mark);
  /// "redis_version" of the server, as a connectivity check.
  Result<std::string> server_version();

 private:
  RedisSettings settings_;
};

}  // namespace merlin
