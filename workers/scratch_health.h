#pragma once
/// Whether a worker's node-local scratch is usable, and when to try it again (docs/staging.md,
/// "When scratch is unusable"). Pure: the worker passes its clock's time in, so a test moves
/// time without sleeping. Not thread-safe: the worker guards it with its lock.
#include <chrono>

#include "merlin/core/broker/broker.h"

namespace merlin {

class ScratchHealth {
 public:
  /// `first`: the wait after the first failure; each failure of a retry doubles it, up to
  /// `max`.
  ScratchHealth(Clock::duration first, Clock::duration max) : first_(first), max_(max) {}
  /// A task's scratch could not be prepared at `now` for a reason of the node (full,
  /// read-only, refused): scratch is down until the returned time. Failures of several slots
  /// in one round (before that time) count once.
  Clock::time_point failed(Clock::time_point now);
  /// A task's scratch was prepared: usable again, the wait starts over. Returns whether it
  /// was down (the caller says it is back).
  bool succeeded();
  /// Whether tasks that need scratch may be taken at `now`: never down, or the wait is over
  /// (the next task is the probe).
  bool usable(Clock::time_point now) const { return !down_ || now >= retry_at_; }
  bool down() const { return down_; }
  Clock::duration wait() const { return wait_; }

 private:
  Clock::duration first_, max_;
  Clock::duration wait_{0};
  bool down_ = false;
  Clock::time_point retry_at_{};
};

}  // namespace merlin
