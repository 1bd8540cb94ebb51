#pragma once
/// The worker's decisions on one delivery, apart from the broker, store and executor calls
/// that carry them out (Worker::handle gathers the facts, asks, and acts, in that order):
/// what to do with a delivery before anything runs (decide_delivery), whose fault a scratch
/// that cannot be prepared is (scratch_fault_is_the_nodes), and what follows a step's run
/// (decide_outcome). Pure functions of plain values; no allocation.
#include <cstdint>
#include <optional>

#include "merlin/core/util/result.h"
#include "workers/return_code_policy.h"
#include "workers/staging_rules.h"

namespace merlin {

/// What the worker knows of a delivery before it runs anything.
struct DeliveryFacts {
  bool leaf = true;  ///< one sample (TaskMessage::is_leaf); else a range to split
  /// Plan::leaf_runnable: its sample is not committed yet (leaves only).
  bool runnable = true;
  bool redelivered = false;          ///< Delivery::redelivered
  std::uint32_t deliveries = 0;      ///< Delivery::deliveries (0: the broker does not count)
  std::uint32_t max_deliveries = 0;  ///< WorkerOptions::max_deliveries (0: no cap)
};

enum class DeliveryAction {
  kSplit,  ///< a range: publish its parts (Plan::split) on the delivery's queue, count, ack
  kSkip,   ///< a leaf already committed: count a skip, ack
  /// A redelivered leaf already committed: its first worker may have died between the commit
  /// and queueing the dependents, so queue them again if the store says it is done
  /// (Plan::after_redelivery), then skip as kSkip.
  kRepublishThenSkip,
  kGiveUp,  ///< delivered more than max_deliveries times: record a soft fail, do not run
  kRun,     ///< render and run the step
};

/// In this order: a range splits; a leaf not runnable is skipped (republishing its follow-ups
/// first when redelivered); a leaf delivered more than max_deliveries (> 0) times is given up;
/// else it runs.
DeliveryAction decide_delivery(const DeliveryFacts& f);

/// Stager::prepare failed with `code`: true when the node's scratch is at fault (full:
/// kNoSpace; read-only, no permission or refused: kUnavailable), so the task goes back to the
/// broker uncommitted; false when the task's own inputs are (a stage_in file missing), so it
/// fails as a soft fail and the study goes on.
bool scratch_fault_is_the_nodes(ErrorCode code);

/// What the worker knows once a step's run has returned.
struct RunFacts {
  bool aborted = false;  ///< Worker::abort() ended the run: not the step's verdict
  /// The executor could not run the step: its error's code (none: the step ran).
  std::optional<ErrorCode> run_error;
  int exit_code = 0;       ///< when it ran
  bool timed_out = false;  ///< when it ran: ended after its walltime
  bool has_restart = false;
  std::uint32_t attempt = 0;
  int max_retries = 0;
  bool scratch = false;  ///< the task has a scratch dir
};

/// What follows a run, in the order Worker::handle carries it out.
struct TaskOutcome {
  enum class Next {
    kRelease,          ///< aborted: hand the task back uncommitted (it runs again on restart)
    kStopWorker,       ///< a full disk: return the run's error uncommitted (the worker stops)
    kRequeue,          ///< count executed, publish the next attempt after retry_delay, ack
    kStageThenCommit,  ///< count executed; the stager copies the outputs, then commits, acks
    kCommit,           ///< count executed; finish as below, then commit and ack
  };
  Next next = Next::kCommit;
  bool could_not_run = false;  ///< log the run's error (the step is counted a soft fail)
  int exit_code = 0;           ///< the code decided on: the step's, or 101 when it could not run
  StepDecision step;           ///< decide_return / decide_timeout (not for kRelease, kStopWorker)
  // For kCommit, in this order:
  bool keep_scratch = false;      ///< log the scratch dir left for inspection
  bool mark_finished = false;     ///< write the MERLIN_FINISHED marker (else log the failure)
  bool failure_is_error = false;  ///< log the failure as an error (106), not a warning
  // step.stop_queue / step.stop_all: stop before the commit publishes dependents.
};

/// Aborted runs are released and full disks stop the worker, whatever the step did; a run
/// that could not start otherwise counts as exit 101 (soft fail). A timed-out run follows
/// decide_timeout, any other decide_return; a requeue is a requeue; else scratch_action says
/// whether a success is staged before its commit and a failure keeps its scratch.
TaskOutcome decide_outcome(const RunFacts& f);

}  // namespace merlin
