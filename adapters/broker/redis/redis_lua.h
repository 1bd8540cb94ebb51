#pragma once
/// The Lua scripts of the Redis adapter. Each runs atomically on the server; their arguments
/// are documented above each script in redis_lua.cc.
///
/// A logical queue is several Streams: "q:<queue>" holds single-sample messages and
/// "w:<b>:<queue>" ranges of width in (2^(b-1), 2^b], with the zset "b:<queue>" listing the b
/// in use. Takes read single samples first, then the narrowest ranges: splitting goes depth
/// first, so the queues hold O(levels × level_max_dirs) messages per worker slot instead of
/// every leaf of the study (Streams alone are FIFO: breadth first).
#include <cstdint>
#include <string>
#include <string_view>

namespace merlin::redis_lua {

/// The Stream a message of `width` samples goes to: 0 for a single sample ("q:<queue>"), else
/// the least b with 2^b >= width ("w:<b>:<queue>"). The scripts take it as an argument.
/// Messages published with Broker::publish_first go to bucket kFirstBucket ("w:-1:<queue>"),
/// which is taken before every other.
inline constexpr int kFirstBucket = -1;
inline int width_bucket(std::uint64_t width) {
  int b = 0;
  for (std::uint64_t p = 1; p < width; p *= 2) ++b;
  return b;
}

/// A count the scripts keep (an instance's total or remaining) that is not known yet: a
/// fan-out instance before its release (docs/fanout.md). The scripts compare with the same 'u'.
inline constexpr std::string_view kUnknownCount = "u";

/// Moves due delayed messages to their Streams, then takes one message (XREADGROUP),
/// creating missing groups. A message kReclaim queued again says how often it was delivered.
extern const std::string kTake;
/// Queues again every pending message idle past the lease or held by a consumer whose
/// heartbeat is older than the dead-after time (server clock), up to a bound per call.
extern const std::string kReclaim;
/// XACK + XDEL + XADD again, only if the message is still pending.
extern const std::string kRelease;
/// Queued + in-flight + delayed of the named queues, in-flight of the other queues.
extern const std::string kPending;
/// Set-if-unset of a sample's done bit and, the first time only, the counters.
extern const std::string kCommit;
/// Commit (as kCommit) + append the follow-ups if new + XACK/XDEL, unless the ack is held at
/// remaining 0: a leaf task finished in one call (Broker::finish).
extern const std::string kFinish;
/// Several leaves, each as kFinish, in one call, their counters and acks grouped
/// (Broker::finish_many; one leaf alone goes by kFinish, whose Lua is cheaper).
extern const std::string kFinishMany;
/// XACK + XDEL of one delivery in one call.
extern const std::string kAck;
/// Records a fan-out instance's count once (total 'u' until then).
extern const std::string kSetCount;
/// Makes an instance's count unknown again and drops its progress (restart re-expands it).
extern const std::string kForgetCount;
/// A tuned instance's commit and what it promotes (redis_lua.cc; docs/tuning.md).
extern const std::string kTuneCommit;
/// A tuned instance's promoted tasks not done yet.
extern const std::string kTunePending;
/// Appends messages of one queue, each to the Stream of its width.
extern const std::string kPublish;
/// Adds a delayed message and counts it, once even if resent.
extern const std::string kPublishAt;
/// Moves a pending message to the dead letters, once even if resent.
extern const std::string kDeadLetter;
extern const std::string kResetFailed;
/// The Streams of some queues, leaves first then narrowest ranges (for a blocking read).
extern const std::string kStreams;
/// Registers a study, its counts, released instances and first messages (see RedisStudies);
/// a no-op if this workspace's study is registered already.
extern const std::string kEnqueue;
/// Queued + in-flight + delayed messages over every queue of a study.
extern const std::string kStudyPending;
/// Per queue of a study: messages in its Streams, pending (reserved), consumers, delayed.
extern const std::string kQueueStats;
/// Drops a study's messages of some (or all) queues: Streams, groups and delayed entries.
extern const std::string kPurgeQueues;

}  // namespace merlin::redis_lua
