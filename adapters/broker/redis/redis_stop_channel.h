#pragma once
/// The StopChannel on Redis: per study the Stream "merlin:<study>:halts", whose ids are the
/// server's clock (ordered across hosts without trusting theirs); a mark is a Stream id.
#include "adapters/broker/redis/redis_settings.h"
#include "merlin/core/broker/stop_channel.h"

namespace merlin {

class RedisStopChannel : public StopChannel {
 public:
  /// `settings.study_key` is not used: every call names its study.
  explicit RedisStopChannel(RedisSettings settings);
  Result<void> halt(const std::string& study_key, const StudyHalt& h) override;
  Result<std::string> clock_mark() override;
  Result<std::vector<StudyHalt>> halts_since(const std::string& study_key,
                                             std::string& mark) override;

 private:
  RedisSettings settings_;
};

}  // namespace merlin
