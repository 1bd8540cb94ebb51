#pragma once
/// Fencing on the worker's side (docs/distributed.md, "Fencing"): when may the broker already
/// have given a task this worker holds to another worker? Then the worker stops the step and
/// drops the delivery without a broker call (the broker may be out of reach), and the broker
/// refuses its late commit. Pure functions of plain values.
#include <chrono>
#include <optional>

namespace merlin {

using FenceClock = std::chrono::steady_clock;

/// The broker's terms for a reserved task: it goes to another worker once its lease has not
/// been renewed for `lease`, or once its holder's last heartbeat is `dead_after` old (0: not
/// by heartbeats). `lease` 0: never (brokers without leases: local runs).
struct LeaseTerms {
  std::chrono::milliseconds lease{0};
  std::chrono::milliseconds dead_after{0};
};

/// Whether the broker may have given a delivery away by `now`: `confirmed` is when the
/// delivery was last known to be this worker's (the send time of its last renewal the broker
/// answered, or the return of the reserve that gave it), `last_beat` the send time of the
/// worker's last heartbeat the broker recorded (none: heartbeats decide nothing). Send times
/// come before the broker's own, so the worker stops no later than the broker may take over.
bool lease_lapsed(const LeaseTerms& terms, FenceClock::time_point now,
                  FenceClock::time_point confirmed,
                  std::optional<FenceClock::time_point> last_beat);

/// How often a worker looks for lapsed leases: a tenth of the shorter term, between 10 ms and
/// 1 s. Zero when `terms` never lapse.
std::chrono::milliseconds fence_check_interval(const LeaseTerms& terms);

}  // namespace merlin
