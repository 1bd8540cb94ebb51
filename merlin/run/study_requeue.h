#pragma once
/// `merlin restart` of a study queued in a broker: its messages are dropped and every
/// unfinished instance is queued again from the progress kept there; leaves skip the samples
/// already done. A study the broker lost is rebuilt from its workspace instead
/// (study_recovery.h).
#include <cstdint>
#include <string>

#include "merlin/core/broker/backend.h"
#include "merlin/run/prepared_study.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// What a re-queue did, for its one line.
struct RequeueResult {
  std::uint64_t done = 0, total = 0;  ///< tasks finished (kept) of all, after the reset
  std::uint64_t failed_again = 0;     ///< failed samples made unfinished, to run again
  std::uint64_t marked = 0;  ///< tasks not done in the broker whose marker says they finished
  std::uint64_t queued = 0;           ///< messages queued
  std::uint64_t dropped = 0;          ///< old messages dropped
};

/// True when `backend` still holds `s`'s progress (one entry per instance); false when it lost
/// the study (flushed, restarted without persistence, another server): rebuild it from the
/// workspace (rebuild_from_markers).
Result<bool> broker_holds_study(const PreparedStudy& s, Backend& backend);

/// Queues `s` again in `backend`, which holds it: clears its purged mark, drops its messages and
/// release claims, forgets the count of a fan-out instance whose file was not read (it expands
/// again, docs/fanout.md), makes failed samples unfinished, commits the tasks whose marker
/// exists but whose commit never reached the broker (commit_marked_tasks; `progress_line`: its
/// progress on stderr), and publishes what the Plan finds ready. Broker errors stop it where
/// they happen.
Result<RequeueResult> requeue_study(const PreparedStudy& s, Backend& backend,
                                    bool progress_line = false);

/// A workspace `merlin run` queued in a broker cannot be restarted with --local: its workers
/// could run the same tasks. kBadInput naming the command that queues it again.
Result<void> check_restart_here(const std::string& workspace, bool queued_in_broker, bool local);

}  // namespace merlin::run
