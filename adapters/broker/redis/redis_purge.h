#pragma once
/// Dropping a study from Redis.
#include <cstdint>

#include "adapters/broker/redis/redis_settings.h"
#include "merlin/core/util/result.h"

namespace merlin {

/// Deletes every key of `settings.study_key` ("merlin:<study>:*", found with SCAN, removed with
/// UNLINK) and returns how many there were. Other studies on the server are untouched. Workers
/// still running on the study recreate their consumer groups; run it when they are gone.
Result<std::uint64_t> purge_study(const RedisSettings& settings);

}  // namespace merlin
