#include "merlin/core/ml/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace merlin::ml {

double learning_rate(const LrSchedule& s, long step) {
  const double ramp =
      s.warmup_steps <= 0
          ? 1.0
          : std::min(1.0, static_cast<double>(step) / static_cast<double>(s.warmup_steps));
  const double scaled = s.base_lr * (1.0 + (s.ranks - 1) * ramp);
  if (s.decay == 1.0 || step < s.warmup_steps) return scaled;
  const long epochs_after = (step - s.warmup_steps) / std::max(s.steps_per_epoch, 1L);
  return scaled * std::pow(s.decay, static_cast<double>(epochs_after));
}

}  // namespace merlin::ml
