#pragma once
/// The learning rate of data-parallel training (Goyal et al., "Accurate, Large Minibatch SGD"):
/// with R ranks the global batch is R times one rank's, so the rate is scaled by R, reached by
/// a linear ramp over the first warm-up steps from the one-rank rate. After the warm-up the
/// rate may decay geometrically, by a factor per epoch. The rate is a pure function of the
/// global step, so a run resumed from a checkpoint (which keeps the step) goes on exactly.

namespace merlin::ml {

struct LrSchedule {
  double base_lr = 1e-3;  ///< the rate of one rank (--lr)
  int ranks = 1;
  long warmup_steps = 0;     ///< steps of the ramp; 0: lr × ranks from the first step
  double decay = 1.0;        ///< factor per epoch after the warm-up (--lr-decay); 1: none
  long steps_per_epoch = 1;  ///< global steps of one epoch (the decay counts whole epochs)
};

/// The rate of global step `step` (0-based): base × (1 + (ranks - 1) × min(1, step /
/// warmup_steps)) × decay^k, where k = (step - warmup_steps) / steps_per_epoch (whole epochs
/// begun after the warm-up; 0 during it). With one rank and no decay it is always `base_lr`.
double learning_rate(const LrSchedule& s, long step);

}  // namespace merlin::ml
