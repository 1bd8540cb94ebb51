#include "adapters/broker/redis/redis_script.h"

namespace merlin {

RedisResult<RedisReply> RedisScript::run(RedisConnection& c, const std::vector<std::string>& keys,
                                         const std::vector<std::string>& args) {
  std::string sha;
  {
    std::lock_guard lock(mu_);
    sha = sha_;
  }
  if (sha.empty()) {
    auto loaded = c.command({"SCRIPT", "LOAD", source_});
    if (!loaded) return loaded;
    sha = loaded->text();
    std::lock_guard lock(mu_);
    sha_ = sha;
  }
  RedisCommand argv{"EVALSHA", sha, std::to_string(keys.size())};
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = c.command(argv);
  if (r || r.redis_code() != RedisErrorCode::kNoScript) return r;
  argv[0] = "EVAL";  // EVAL also caches the script again, so EVALSHA works next time
  argv[1] = source_;
  return c.command(argv);
}

}  // namespace merlin
