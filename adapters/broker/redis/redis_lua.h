#pragma once
/// The Lua scripts of the Redis adapter. Each runs atomically on the server; their arguments
/// are documented at the top of each script in redis_lua.cc.
namespace merlin::redis_lua {

/// Moves due delayed messages to their Streams, then takes one message: an expired lease
/// first (XAUTOCLAIM), else a new one (XREADGROUP), creating missing groups.
extern const char* const kTake;
/// XACK + XDEL + XADD again, only if the message is still pending.
extern const char* const kRelease;
/// Queued + in-flight + delayed of the named queues, in-flight of the other queues.
extern const char* const kPending;
/// Set-if-unset of a sample's done bit and, the first time only, the counters.
extern const char* const kCommit;

}  // namespace merlin::redis_lua

namespace merlin::redis_lua {

/// Registers a study, its counts, released instances and first messages (see RedisStudies).
extern const char* const kEnqueue;
/// Queued + in-flight + delayed messages over every queue of a study.
extern const char* const kStudyPending;
/// Drops a study's messages of some (or all) queues: Streams, groups and delayed entries.
extern const char* const kPurgeQueues;

}  // namespace merlin::redis_lua
