#include "workers/task_decisions.h"

namespace merlin {

DeliveryAction decide_delivery(const DeliveryFacts& f) {
  if (!f.leaf) return DeliveryAction::kSplit;
  if (!f.runnable)
    return f.redelivered ? DeliveryAction::kRepublishThenSkip : DeliveryAction::kSkip;
  if (f.max_deliveries > 0 && f.deliveries > f.max_deliveries) return DeliveryAction::kGiveUp;
  return DeliveryAction::kRun;
}

bool scratch_fault_is_the_nodes(ErrorCode code) {
  return code == ErrorCode::kNoSpace || code == ErrorCode::kUnavailable;
}

TaskOutcome decide_outcome(const RunFacts& f) {
  TaskOutcome o;
  if (f.aborted) {
    o.next = TaskOutcome::Next::kRelease;
    return o;
  }
  o.exit_code = f.exit_code;
  bool timed_out = f.timed_out;
  if (f.run_error) {
    // A full disk (the script, .out/.err, the lean logs) is not the step's verdict.
    if (*f.run_error == ErrorCode::kNoSpace) {
      o.next = TaskOutcome::Next::kStopWorker;
      return o;
    }
    o.could_not_run = true;
    o.exit_code = static_cast<int>(StepReturn::kSoftFail);
    timed_out = false;
  }
  o.step = timed_out ? decide_timeout(f.has_restart, f.attempt, f.max_retries)
                     : decide_return(o.exit_code, f.attempt, f.max_retries);
  if (o.step.requeue) {
    o.next = TaskOutcome::Next::kRequeue;
    return o;
  }
  switch (scratch_action(f.scratch, o.step.outcome == Outcome::kSuccess, o.step.requeue)) {
    case ScratchAction::kStageThenCommit:
      o.next = TaskOutcome::Next::kStageThenCommit;
      return o;
    case ScratchAction::kKeepForInspection:
      o.keep_scratch = true;
      break;
    case ScratchAction::kNone:
    case ScratchAction::kRequeue:
      break;
  }
  o.next = TaskOutcome::Next::kCommit;
  o.mark_finished = o.step.write_finished;
  o.failure_is_error = !o.mark_finished && o.exit_code == static_cast<int>(StepReturn::kRaiseError);
  return o;
}

}  // namespace merlin
