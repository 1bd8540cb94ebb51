#pragma once
/// The decisions of the control loop that runs while a fleet's workers serve a study
/// (worker_fleet.cc acts on them): when to drain and abort (StopControl), whether the drain is
/// for the allocation's end, and when to heartbeat and read the halts. Time is given, not
/// read: tests step it.
#include <chrono>
#include <optional>

#include "merlin/run/stop_control.h"

namespace merlin::run {

/// How often the control loop heartbeats and reads other processes' halts while serving.
inline constexpr std::chrono::seconds kServeBeatEvery{1};

/// Whether `now` is at or past the allocation's drain time (none: never).
bool past_drain_time(std::optional<std::chrono::steady_clock::time_point> drain_at,
                     std::chrono::steady_clock::time_point now);

/// What the control loop knows on one turn.
struct ServeTurnFacts {
  std::chrono::steady_clock::time_point now;
  int interrupts = 0;           ///< Interrupts::count()
  bool stop_requested = false;  ///< stop-workers, MERLIN_STOP_WORKERS
  std::optional<std::chrono::steady_clock::time_point> drain_at;  ///< FleetOptions::drain_at
};

/// What to do on that turn, in this order.
struct ServeTurn {
  bool drain = false;                 ///< ask every worker to stop (once)
  bool drain_for_allocation = false;  ///< the drain is (also) for the allocation's end: say so
  bool abort = false;                 ///< end the running steps (once)
  bool beat = false;                  ///< heartbeat, then obey new halts
};

/// One per serve: remembers the stop steps taken and the last heartbeat.
class ServeControl {
 public:
  /// The first turn heartbeats; later ones when kServeBeatEvery has passed since the last.
  /// A stop request or the allocation's end drains; interrupts drain then abort
  /// (StopControl::advance).
  ServeTurn advance(const ServeTurnFacts& f);

 private:
  StopControl stop_;
  std::optional<std::chrono::steady_clock::time_point> last_beat_;
};

}  // namespace merlin::run
