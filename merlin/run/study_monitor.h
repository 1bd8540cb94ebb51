#pragma once
/// `merlin monitor`: blocks while the studies of a spec have work in the broker, so a batch
/// allocation stays alive. Each poll reads the work pending and the live workers; the pure
/// `decide` says whether to wait, to finish (nothing pending: done, unless the broker lost
/// work) or to give up (work waiting and no live worker for the stall timeout).
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "merlin/core/broker/backend.h"
#include "merlin/core/broker/worker_registry.h"
#include "merlin/run/progress_totals.h"
#include "merlin/run/study_recovery.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

struct MonitorOptions {
  std::string study_name;        ///< the spec's description.name
  std::set<std::string> queues;  ///< --steps: only these queues; empty: all the study's work
  std::string output_path;       ///< the spec's OUTPUT_PATH, where lost studies' workspaces are
  double stall_seconds = 300;    ///< --stall-timeout
  /// a worker whose heartbeat is older is not serving (is_alive)
  std::chrono::milliseconds dead_after = kDefaultDeadAfter;
};

/// One look at the broker.
struct MonitorPoll {
  std::uint64_t pending = 0;  ///< messages queued, reserved or delayed (on the chosen queues)
  ProgressTotals totals;      ///< tasks finished of all, over the studies of the name
  int alive = 0;              ///< live workers of this spec
};

/// What the monitor remembers between polls.
struct MonitorState {
  /// Since when work has waited with no live worker; none while one serves it.
  std::optional<std::chrono::steady_clock::time_point> unserved_since;
};

enum class MonitorStep {
  kWait,        ///< poll again after the pause
  kNoWorkLeft,  ///< nothing pending: done, unless the broker lost the work
  kStalled,     ///< work waited with no live worker for longer than the stall timeout
};

/// The monitor's decision for `poll` at `now`; updates `state`. Pure. A first poll without a
/// live worker starts the stall clock; one with a live worker stops it.
MonitorStep decide(MonitorState& state, const MonitorPoll& poll,
                   std::chrono::steady_clock::time_point now, double stall_seconds);

/// The workers of `spec_name` alive at `now_ms` among `workers` (is_alive with `dead_after`).
int live_workers(const std::vector<WorkerRecord>& workers, const std::string& spec_name,
                 std::int64_t now_ms, std::chrono::milliseconds dead_after);

/// Reads the pending work, progress and live workers of the studies `o` names.
Result<MonitorPoll> poll_studies(Backend& backend, const MonitorOptions& o, std::int64_t now_ms);

struct MonitorOutcome {
  enum class Kind { kDone, kLost, kStalled, kInterrupted } kind = Kind::kDone;
  MonitorPoll last;             ///< the last poll
  std::vector<LostStudy> lost;  ///< kLost: the studies whose work the broker lost
};

/// Polls `backend` until `decide` ends it; after every poll that waits,
/// `between_polls` is called (it prints and pauses; false: interrupted, kInterrupted).
Result<MonitorOutcome> watch_studies(Backend& backend, const MonitorOptions& o,
                                     const std::function<bool(const MonitorPoll&)>& between_polls);

}  // namespace merlin::run
