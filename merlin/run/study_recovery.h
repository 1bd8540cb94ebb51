#pragma once
/// When the broker loses a study (FLUSHALL, a Redis restarted without persistence, its queue
/// Streams deleted), the workspace still holds the truth: the spec and samples copies, and a
/// MERLIN_FINISHED marker in every task directory that succeeded. This finds such studies, so
/// that workers and `monitor` say so instead of reporting success, and rebuilds a study in the
/// broker from its markers for `merlin restart`.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "merlin/core/broker/backend.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/prepared_study.h"

namespace merlin::run {

/// A study whose unfinished work is in no queue of the broker.
struct LostStudy {
  std::string key, workspace;
  bool registered = false;            ///< false: the broker has no record of it at all
  std::uint64_t done = 0, total = 0;  ///< from the broker's counters (registered only)

  /// One line for a log or an error: what is lost and the command that queues it again.
  std::string describe(const std::string& where) const;
};

/// The studies named `name` whose unfinished work `backend` has lost:
///  - registered ones with nothing queued, delayed or in flight while samples are not done
///    (messages are published before the task that made them is acked, so this never holds
///    for a study at work), unless `merlin purge` removed their messages on purpose;
///  - workspaces under `output_path` that `merlin run` queued on this same broker, that it no
///    longer knows, and that never finished.
/// For a backend that declares a `lost_recheck()`, the studies with a zero pending count and
/// unfinished samples are read again after one `wait` of that long (for all of them) before
/// they count as lost; other backends never wait. Side effect: registered studies found
/// complete get `finished=1` in merlin_info/run.env, the mark that keeps them from being
/// reported once the broker forgets them.
using Wait = std::function<void(std::chrono::milliseconds)>;
/// The wait of find_lost_studies outside tests: this thread sleeps.
void sleep_wait(std::chrono::milliseconds how_long);
Result<std::vector<LostStudy>> find_lost_studies(Backend& backend, const std::string& name,
                                                 const std::string& output_path,
                                                 const Wait& wait = sleep_wait);

/// Which suspects (studies that read zero pending with unfinished samples) are lost, given
/// whether each one's pending count read zero again after the recheck (`still_zero`, empty
/// when the backend declares none): those still at zero and not purged on purpose. Pure.
std::vector<LostStudy> confirm_lost(std::vector<LostStudy> suspects,
                                    const std::vector<bool>& purged,
                                    const std::vector<bool>& still_zero);

struct RebuildReport {
  std::uint64_t tasks = 0, done = 0;  ///< done: tasks whose marker was found
  std::uint64_t messages = 0;
};

/// Registers `s` again in `backend` (dropping whatever is left of it
/// there), with the tasks whose MERLIN_FINISHED marker exists counted as done (in a lean
/// workspace without markers: the tasks its task journals record as successful), and queues the
/// rest at once. Failed samples have no marker and run again, as a restart runs them. Needs the
/// samples open (a renderer). O(tasks) file checks; `progress`: a line on stderr every few
/// seconds while they take long.
Result<RebuildReport> rebuild_from_markers(PreparedStudy& s, Backend& backend, bool progress);

/// For a study the broker still holds: commits as successes the tasks `store` does not count
/// as done whose MERLIN_FINISHED marker exists (in a lean workspace without markers: whose
/// task journal records a success). Such a task finished, but its worker died before the
/// commit reached the broker; without this a restart would run it again. Tuned instances
/// (their commits carry a result) and fan-out instances not expanded yet are left alone.
/// Returns how many it committed. One file check per unfinished task; `progress`: a line on
/// stderr every few seconds while they take long. Needs the samples open (a renderer).
Result<std::uint64_t> commit_marked_tasks(const PreparedStudy& s, StateStore& store,
                                          bool progress);

}  // namespace merlin::run
