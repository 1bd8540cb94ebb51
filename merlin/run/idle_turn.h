#pragma once
/// The fleet's decision on a turn of its loop in which no study had work for its workers
/// (worker_fleet.cc acts on it): look again, wait for work, or finish (--exit-when-done), and
/// the exit code it finishes with. Pure functions of their arguments.

namespace merlin::run {

/// What the loop knows on such a turn.
struct IdleTurnFacts {
  bool exit_when_done = false;  ///< RunWorkersOptions::exit_when_done
  bool lost = false;            ///< the broker lost some study's work (find_lost_studies)
  int lost_polls = 0;           ///< consecutive idle turns before this one that found lost work
  bool announced_wait = false;  ///< "waiting for work" was logged since the last serve
};

struct IdleTurn {
  enum class Next {
    kLookAgain,  ///< wait a second (heartbeating), then look at the studies again
    kWait,       ///< no work yet: wait a second for some, then look again
    kFinish,     ///< --exit-when-done and nothing left: exit (exit_status_when_done)
  };
  Next next = Next::kWait;
  int lost_polls = 0;     ///< the count after this turn
  bool announce = false;  ///< kWait: log "waiting for work" now (the first of a run of waits)
};

/// With --exit-when-done a study found lost is looked at again a second later before the
/// fleet gives up on it (`merlin restart` empties its queues for a moment before queueing them
/// again), then the fleet finishes; without, it waits for work, announcing it once.
IdleTurn decide_idle_turn(const IdleTurnFacts& f);

/// --exit-when-done's exit code: kExitFailed when messages are left on queues a hard fail
/// stopped (`stuck`), when the broker lost a study's work (`lost`), or when a study's workspace
/// could not be opened (`skipped`); else kExitOk.
int exit_status_when_done(bool stuck, bool lost, bool skipped);

}  // namespace merlin::run
