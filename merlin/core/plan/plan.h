#pragma once
/// Which tasks are ready: the decisions of the scheduler, separated from the loop that acts on
/// them (workers/). It reads progress from the StateStore and returns messages to publish.
///
/// Rules:
///  - An instance is *released* (its whole range queued) once every kWhole parent is complete;
///    `claim_release` makes that happen once even when parents complete concurrently.
///  - Sample s of a child with kPerSample parents is queued by the commit of sample s of a
///    parent, when every other parent is done with s (per-sample pipelining).
///  - If an instance has per-sample parents *and* is released, its range is `gated`: each leaf
///    checks its parents before running. Either the parent's commit or the gated leaf sees the
///    other's write, so no sample is lost; at worst one runs twice and commits once.
///  - Releasing a fan-out instance (`samples_from`, docs/fanout.md) expands it first: the
///    FanoutSource gives its row count, StateStore::set_count records it (first count wins),
///    and the range queued is [0, recorded count). A failed expansion records 1 sample: one
///    task, which the worker fails with the expansion's message (the study goes on).
///  - Loops (docs/fanout.md): iterations after the first start with unknown counts, recorded
///    at their release. Releasing iteration i+1's `back_to` instance asks the FanoutSource for
///    iteration i's decider's verdict: "again" releases it; "stop" records every instance of
///    iterations i+1.. as done with 0 samples and releases what waited for them (the steps
///    after the loop). set_count's first-wins makes a stop and a release exclusive.
///  - A tuned instance (`tune:`, docs/tuning.md) is released as its trials at their first
///    rung; what a result promotes is decided by the store in the commit
///    (StateStore::commit_trial) and queued from CommitResult::promoted; a restart or a
///    redelivery queues the store's pending promotions again.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/broker/task_message.h"
#include "merlin/core/study/fanout_source.h"
#include "merlin/core/study/study_graph.h"
#include "merlin/core/util/result.h"

namespace merlin {

struct Routed {
  std::string queue;
  TaskMessage message;
  /// Taken before the queue's waiting messages (Broker::publish_first): a search's promotions.
  bool first = false;
};

class Plan {
 public:
  /// `fanout` expands fan-out instances; it may be null for a study without any (releasing
  /// one then fails with kRuntime). Both must outlive the Plan.
  explicit Plan(const StudyGraph& graph, const FanoutSource* fanout = nullptr);

  /// Every message to queue to (re)start the study from the state in `store` (empty store:
  /// the roots). Instances already complete are skipped; done samples are skipped by leaves.
  Result<std::vector<Routed>> ready_at_start(StateStore& store) const;

  /// Children of a range wider than one sample, aligned to the sample directories.
  std::vector<TaskMessage> split(const TaskMessage& m) const;

  /// Should this leaf run now? False when its sample is done, or (gated) a parent is not.
  /// `known_done`: the sample's done bit as the broker read it at delivery
  /// (Delivery::sample_done), which spares the store read.
  Result<bool> leaf_runnable(const TaskMessage& m, StateStore& store,
                             std::optional<bool> known_done = std::nullopt) const;

  /// Messages made ready by a commit of `sample` of `instance`.
  Result<std::vector<Routed>> after_commit(InstanceId instance, SampleId sample,
                                           const CommitResult& commit, StateStore& store) const;

  /// What `after_commit` of a new commit of `sample` queues besides whole releases, decided
  /// before the commit, when no store read can change it (Broker::finish does commit, publish
  /// and ack in one call): the per-sample children whose only parent is `instance` and whose
  /// count is known. nullopt when some per-sample child has other parents or a count decided
  /// at its release (a loop copy): its readiness reads the store, so after_commit decides.
  std::optional<std::vector<Routed>> follow_ups_before_commit(InstanceId instance,
                                                              SampleId sample) const;
  /// Does completing `instance` release anything (it has whole children)? Then a commit that
  /// brings its remaining count to 0 is followed by `after_complete`.
  bool releases_when_complete(InstanceId instance) const;
  /// The whole children that the completion of `instance` releases (each once:
  /// claim_release), as `after_commit` of the commit that brought remaining to 0 adds them.
  Result<std::vector<Routed>> after_complete(InstanceId instance, StateStore& store) const;

  /// Messages a redelivered, already committed leaf must queue again: its first run may have
  /// died between the commit and the publish. Per-sample children as in `after_commit`; whole
  /// children that are ready and not complete get their whole range again, without the
  /// release claim (their first release may be lost; a duplicate only costs skipped leaves).
  Result<std::vector<Routed>> after_redelivery(InstanceId instance, SampleId sample,
                                               StateStore& store) const;

  const std::string& queue_of(InstanceId instance) const;
  const StudyGraph& graph() const { return graph_; }

 private:
  Result<bool> whole_parents_complete(const Instance& inst, StateStore& store) const;
  Result<bool> sample_parents_done(const Instance& inst, SampleId s, StateStore& store) const;
  bool has_per_sample_parent(const Instance& inst) const;
  Routed whole_range(const Instance& inst) const;
  /// Appends what releasing `inst` queues: its whole range, after expanding a fan-out
  /// instance or recording a loop copy's count; or, for a loop head whose decider said stop,
  /// what skipping the rest of the loop releases (see the rules above).
  /// `claim`: instances released on the way (after a skipped loop) take their release claim;
  /// false after a redelivery, whose first release may be the one that was lost.
  Result<void> release(const Instance& inst, StateStore& store, std::vector<Routed>& out,
                       bool claim = true) const;
  /// Records 0 samples for every instance of `head`'s loop from `head`'s iteration on, then
  /// releases the instances outside those that were waiting for them.
  Result<void> skip_rest_of_loop(const Instance& head, StateStore& store, std::vector<Routed>& out,
                                 bool claim) const;
  /// The count of an instance that was unknown at start, recording it first if need be
  /// (a loop copy's own count; 0 when its loop stopped before it).
  Result<std::uint64_t> count_of(const Instance& inst, StateStore& store, std::vector<Routed>& out,
                                 bool claim = true) const;
  Routed one_sample(const Instance& inst, SampleId s) const;
  /// Releasing a tuned instance (docs/tuning.md): each bracket's trials at its first rung,
  /// plus the promotions the store holds that are not done (a restart).
  Result<void> release_trials(const Instance& inst, StateStore& store,
                              std::vector<Routed>& out) const;
  Result<void> republish_promotions(const Instance& inst, StateStore& store,
                                    std::vector<Routed>& out) const;

  const StudyGraph& graph_;
  const FanoutSource* fanout_;
};

}  // namespace merlin
