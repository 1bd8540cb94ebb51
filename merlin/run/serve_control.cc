#include "merlin/run/serve_control.h"

namespace merlin::run {

bool past_drain_time(std::optional<std::chrono::steady_clock::time_point> drain_at,
                     std::chrono::steady_clock::time_point now) {
  return drain_at && now >= *drain_at;
}

ServeTurn ServeControl::advance(const ServeTurnFacts& f) {
  ServeTurn t;
  const bool past = past_drain_time(f.drain_at, f.now);
  auto steps = stop_.advance(f.interrupts, f.stop_requested || past);
  t.drain = steps.drain;
  t.drain_for_allocation = steps.drain && past;
  t.abort = steps.abort;
  if (!last_beat_ || f.now - *last_beat_ >= kServeBeatEvery) {
    last_beat_ = f.now;
    t.beat = true;
  }
  return t;
}

}  // namespace merlin::run
