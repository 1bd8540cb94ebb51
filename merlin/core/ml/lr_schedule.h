#pragma once
/// The learning rate of data-parallel training (Goyal et al., "Accurate, Large Minibatch SGD"):
/// with R ranks the global batch is R times one rank's, so the rate is scaled by R, reached by
/// a linear ramp over the first warm-up steps from the one-rank rate.

namespace merlin::ml {

struct LrSchedule {
  double base_lr = 1e-3;  ///< the rate of one rank (--lr)
  int ranks = 1;
  long warmup_steps = 0;  ///< steps of the ramp; 0: lr × ranks from the first step
};

/// The rate of global step `step` (0-based): base × (1 + (ranks - 1) × min(1, step /
/// warmup_steps)). With one rank it is always `base_lr`.
double learning_rate(const LrSchedule& s, long step);

}  // namespace merlin::ml
