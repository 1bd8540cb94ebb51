#include "workers/scratch_health.h"

#include <algorithm>

namespace merlin {

Clock::time_point ScratchHealth::failed(Clock::time_point now) {
  if (down_ && now < retry_at_) return retry_at_;  // another slot's failure of this round
  wait_ = down_ ? std::min(wait_ * 2, max_) : first_;
  down_ = true;
  retry_at_ = now + wait_;
  return retry_at_;
}

bool ScratchHealth::succeeded() {
  const bool was = down_;
  down_ = false;
  wait_ = Clock::duration(0);
  return was;
}

}  // namespace merlin
