#pragma once
/// The studies queued on a broker, so that `run-workers`, `status`, `queue-info`, `purge`,
/// `monitor` and `restart` find them from a spec's name or a workspace, and what each has
/// waiting. Free of any server's shapes: adapters/broker/redis implements it (a sorted set and a
/// hash per study), a RabbitMQ backend will too.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/broker/task_message.h"
#include "merlin/core/util/result.h"

namespace merlin {

struct StudyRecord {
  std::string key;        ///< "<name>_<timestamp>": the workspace's directory name
  std::string workspace;  ///< absolute path on the shared file system
  std::string name;       ///< description.name after token substitution
  std::int64_t created = 0;
  bool purged = false;  ///< `merlin purge` removed its messages (restart queues them again)
};

/// What a new study puts into the broker.
struct StudyEnqueue {
  StudyRecord record;
  std::vector<std::uint64_t> counts;     ///< samples per instance
  std::vector<std::uint64_t> remaining;  ///< not done per instance (empty: counts)
  /// Done bitmaps (sample 0 is the high bit of byte 0) of instances with samples done
  /// already: a study rebuilt from its workspace's markers.
  std::vector<std::pair<std::uint32_t, std::string>> done;
  std::vector<std::string> queues;      ///< every queue of the study's steps
  std::vector<std::uint32_t> released;  ///< instances whose whole range is queued now
  std::vector<std::pair<std::string, TaskMessage>> messages;  ///< (queue, message)
};

/// Per queue of a study, for `queue-info`.
struct QueueStats {
  std::string queue;
  std::uint64_t queued = 0, reserved = 0, delayed = 0, consumers = 0;
};

class StudyRegistry {
 public:
  virtual ~StudyRegistry() = default;
  /// Registers the study, records its counts, marks the released instances and queues the
  /// messages: all of it or (error, server gone) none of it. A study of that key registered
  /// already: kExists.
  virtual Result<void> enqueue(const StudyEnqueue& study) = 0;
  /// Every registered study, oldest first.
  virtual Result<std::vector<StudyRecord>> list() = 0;
  /// The registered studies whose `name` is `name`, oldest first: list(), filtered. A backend
  /// may override it to read nothing of other studies (a study key starts with "<name>_"), so
  /// that a worker whose Redis ACL user reaches one study's keys only is not refused
  /// (docs/security.md).
  virtual Result<std::vector<StudyRecord>> list_named(const std::string& name) {
    auto all = list();
    if (!all) return all.error();
    std::vector<StudyRecord> out;
    for (auto& r : *all)
      if (r.name == name) out.push_back(std::move(r));
    return out;
  }
  /// Queued + delayed + in-flight messages over every queue of the study: 0 means no more work
  /// can appear (dependents are published before a task is acked).
  virtual Result<std::uint64_t> pending(const std::string& study_key) = 0;
  virtual Result<std::vector<QueueStats>> queue_stats(const std::string& study_key) = 0;
  /// Single samples reserved by workers now (running, or about to), per instance id.
  virtual Result<std::vector<std::uint32_t>> running(const std::string& study_key,
                                                     std::size_t instances) = 0;
  /// Removes the study's messages (queued, reserved and delayed) of `queues` (all when
  /// empty), keeping its progress; returns how many messages were removed.
  virtual Result<std::uint64_t> purge_queues(const std::string& study_key,
                                             const std::vector<std::string>& queues) = 0;
  /// Marks the study purged (its messages removed on purpose) or not: a purged study with
  /// unfinished work is not reported as lost by workers and `monitor`.
  virtual Result<void> set_purged(const std::string& study_key, bool purged) = 0;
  /// Forgets which instances were released (restart re-releases the unfinished ones).
  virtual Result<void> clear_releases(const std::string& study_key) = 0;
  /// Makes every failed sample unfinished again (restart runs failed tasks again); returns
  /// how many.
  virtual Result<std::uint64_t> reset_failed(const std::string& study_key,
                                             std::size_t instances) = 0;
  /// Removes everything of the study and its registration; returns how much went.
  virtual Result<std::uint64_t> forget(const std::string& study_key) = 0;
};

}  // namespace merlin
