#include "merlin/run/idle_turn.h"

#include "merlin/core/util/exit_codes.h"

namespace merlin::run {

IdleTurn decide_idle_turn(const IdleTurnFacts& f) {
  IdleTurn t;
  t.lost_polls = f.lost ? f.lost_polls + 1 : 0;
  if (f.exit_when_done) {
    t.next = t.lost_polls == 1 ? IdleTurn::Next::kLookAgain : IdleTurn::Next::kFinish;
    return t;
  }
  t.next = IdleTurn::Next::kWait;
  t.announce = !f.announced_wait;
  return t;
}

int exit_status_when_done(bool stuck, bool lost, bool skipped) {
  return stuck || lost || skipped ? kExitFailed : kExitOk;
}

}  // namespace merlin::run
