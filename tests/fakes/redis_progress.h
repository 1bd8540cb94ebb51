#pragma once
/// For tests of the Redis store alone: records an instance count per instance as `merlin run`'s
/// enqueue script does (HSETNX of total and remaining), without registering a study.
#include <cstdint>
#include <vector>

#include "adapters/broker/redis/redis_settings.h"
#include "merlin/core/util/result.h"

namespace merlin::testing {

Result<void> init_progress(const RedisSettings& settings, const std::vector<std::uint64_t>& counts);

}  // namespace merlin::testing
