#include "merlin/core/ml/lr_schedule.h"

#include <algorithm>

namespace merlin::ml {

double learning_rate(const LrSchedule& s, long step) {
  const double ramp =
      s.warmup_steps <= 0
          ? 1.0
          : std::min(1.0, static_cast<double>(step) / static_cast<double>(s.warmup_steps));
  return s.base_lr * (1.0 + (s.ranks - 1) * ramp);
}

}  // namespace merlin::ml
