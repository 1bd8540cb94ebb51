#pragma once
/// The expanded task graph of a study: steps × parameter combinations = instances, each with
/// a sample count (N for sampled steps, 1 otherwise) and typed edges. O(steps × combinations)
/// memory: samples are ranges, never objects.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/spec/study_spec.h"
#include "merlin/core/study/ids.h"
#include "merlin/core/study/sample_hierarchy.h"
#include "merlin/core/study/study_tokens.h"
#include "merlin/core/tune/tune_shape.h"
#include "merlin/core/util/result.h"

namespace merlin {

/// How a child waits for a parent instance.
enum class EdgeKind : std::uint8_t {
  kWhole,      ///< the child starts after every sample of the parent finished
  kPerSample,  ///< sample s of the child starts when sample s of the parent finished
};

struct Edge {
  InstanceId instance;
  EdgeKind kind = EdgeKind::kWhole;
};

struct StepNode {
  StepId id;
  std::string name;
  const spec::Step* spec = nullptr;
  bool sampled = false;  ///< cmd/restart use a sample token, or `fanout`
  /// Its samples are the rows of a file written upstream (`samples_from`, docs/fanout.md):
  /// its instances' counts are known only when they are released.
  bool fanout = false;
  /// A tuned step (`tune:`, docs/tuning.md): each instance is a search whose tasks are
  /// (trial, rung) pairs, `tune->tasks()` of them; not sampled.
  std::optional<tune::TuneShape> tune;
  std::vector<std::string> used_params;  ///< sorted by name; includes inherited ones
  std::string cmd;                       ///< with study-level tokens substituted
  std::string restart;                   ///< idem; empty if none
  std::string shell;                     ///< "#!" line interpreter
  std::string batch_type;                ///< the step's, or the study's
  InstanceId first_instance;
  std::uint32_t instance_count = 0;
  /// Index into StudyGraph::loops() of the loop whose body holds this step, or -1.
  int loop = -1;
  /// For a loop body step: the first instance of each iteration (index 0 = first_instance).
  std::vector<InstanceId> iteration_first;
};

/// A bounded loop (`loop:` of its decider, docs/fanout.md), pre-expanded: iteration i of every
/// body step is its own set of instances; iteration i+1's `back_to` instances also wait for
/// iteration i's decider, whose verdict (Plan, FanoutSource::loop_again) either releases them
/// or records every later iteration's instances as done with no samples.
struct Loop {
  StepId back_to, decider;
  std::uint32_t iterations = 1;  ///< max_iterations
  std::vector<StepId> body;      ///< topological order
};

struct Instance {
  InstanceId id;
  StepId step;
  int combo = -1;               ///< parameter combination index, -1 for an unparameterised step
  std::string labels;           ///< "N_NEW.10.X2.0.5" ('.'-joined labels sorted by parameter name)
  std::string rel_dir;          ///< "<step>" or "<step>/<labels>", relative to the workspace
  std::string base_name;        ///< "<step>" or "<step>_<labels>": script/out/err names
  std::uint64_t count = 1;      ///< samples (1 for an unsampled step, 0 for a fan-out step's,
                                ///< trials × rungs for a tuned step's)
  std::uint32_t iteration = 1;  ///< loop iteration ($(MERLIN_ITERATION)); 1 outside loops
  std::uint32_t index = 0;      ///< position among its step's instances of that iteration
  std::vector<Edge> parents;
  std::vector<Edge> children;
};

class StudyGraph {
 public:
  /// Builds the graph. `samples` is the number of sample rows (0 when the study has none).
  /// Errors (kBadInput) only for things the spec validator cannot see, e.g. a sampled step in a
  /// study without samples.
  static Result<StudyGraph> build(const spec::StudySpec& spec, const StudyTokens& tokens,
                                  std::uint64_t samples);

  const spec::StudySpec& spec() const { return *spec_; }
  const std::vector<StepNode>& steps() const { return steps_; }
  const std::vector<Instance>& instances() const { return instances_; }
  const StepNode& step(StepId id) const { return steps_[id.v]; }
  const StepNode& step_of(InstanceId id) const { return steps_[instances_[id.v].step.v]; }
  const Instance& instance(InstanceId id) const { return instances_[id.v]; }
  const SampleHierarchy& hierarchy() const { return hierarchy_; }
  std::uint64_t samples() const { return samples_; }
  /// The task directory of `sample` of instance `id` relative to the workspace, for a step
  /// whose directories the study fixes (not fanning out, not tuned): the instance's directory,
  /// then the sample's hierarchy path when the step is sampled.
  std::string fixed_task_dir(InstanceId id, std::uint64_t sample) const;
  /// Total tasks (samples summed over instances; fan-out instances count 0).
  std::uint64_t total_tasks() const;
  /// Every instance's sample count as a store starts with it: kCountUnknown for those that
  /// unknown_at_start.
  std::vector<std::uint64_t> start_counts() const;
  /// A fan-out instance, or a loop iteration after the first: its count is recorded when it
  /// is released (or 0 when its loop stopped before it).
  bool unknown_at_start(InstanceId id) const {
    const auto& i = instances_[id.v];
    return i.iteration > 1 || steps_[i.step.v].fanout;
  }
  const std::vector<Loop>& loops() const { return loops_; }
  /// Instance `index` of step `step` in loop iteration `iteration` (1 = the original).
  InstanceId in_iteration(StepId step, std::uint32_t index, std::uint32_t iteration) const {
    const auto& n = steps_[step.v];
    if (iteration <= 1 || n.iteration_first.size() < iteration) return {n.first_instance.v + index};
    return {n.iteration_first[iteration - 1].v + index};
  }
  /// For an instance of a loop's `back_to` step in iteration i > 1, the decider instances of
  /// iteration i-1 it waits for; empty otherwise.
  std::vector<InstanceId> previous_deciders(InstanceId id) const;
  /// Parameter value for combination `combo` (raw text) and its rendered label ("X2.0.5").
  std::string param_value(const std::string& name, int combo) const;
  std::string param_label(const std::string& name, int combo) const;
  const StudyTokens& tokens() const { return *tokens_; }

 private:
  const spec::StudySpec* spec_ = nullptr;
  const StudyTokens* tokens_ = nullptr;
  std::vector<StepNode> steps_;
  std::vector<Instance> instances_;
  SampleHierarchy hierarchy_;
  std::uint64_t samples_ = 0;
  std::vector<Loop> loops_;
  /// Adds iterations 2..K of every loop body (loop_expansion.cc). Errors name the loop.
  Result<void> expand_loops();
};

/// Steps in an order where every step comes after the steps it depends on.
std::vector<StepId> topological_order(const spec::StudySpec& spec);

}  // namespace merlin
