#include "tests/fakes/redis_progress.h"

#include <string>

#include "adapters/broker/redis/redis_connection.h"

namespace merlin::testing {

Result<void> init_progress(const RedisSettings& settings,
                           const std::vector<std::uint64_t>& counts) {
  auto c = RedisConnection::open(settings);
  if (!c) return c.error();
  RedisKeys keys(settings.study_key);
  std::vector<RedisCommand> cmds;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    auto f = std::to_string(i);
    if (counts[i] == kCountUnknown) {  // a fan-out instance, as the enqueue script leaves it
      cmds.push_back({"HSETNX", keys.total(), f, "u"});
      continue;
    }
    auto n = std::to_string(counts[i]);
    cmds.push_back({"HSETNX", keys.total(), f, n});
    cmds.push_back({"HSETNX", keys.remaining(), f, n});
  }
  auto r = (*c)->transaction(cmds);
  if (!r) return r.error();
  return ok();
}

}  // namespace merlin::testing
