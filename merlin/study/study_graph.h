#pragma once
/// The expanded task graph of a study: steps × parameter combinations = instances, each with
/// a sample count (N for sampled steps, 1 otherwise) and typed edges. O(steps × combinations)
/// memory: samples are ranges, never objects.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/spec/study_spec.h"
#include "merlin/study/ids.h"
#include "merlin/study/sample_hierarchy.h"
#include "merlin/study/study_tokens.h"
#include "merlin/util/result.h"

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
  std::vector<std::string> used_params;  ///< sorted by name; includes inherited ones
  std::string cmd;                       ///< with study-level tokens substituted
  std::string restart;                   ///< idem; empty if none
  std::string shell;                     ///< "#!" line interpreter
  std::string batch_type;                ///< the step's, or the study's
  InstanceId first_instance;
  std::uint32_t instance_count = 0;
};

struct Instance {
  InstanceId id;
  StepId step;
  int combo = -1;           ///< parameter combination index, -1 for an unparameterised step
  std::string labels;       ///< "N_NEW.10.X2.0.5" ('.'-joined labels sorted by parameter name)
  std::string rel_dir;      ///< "<step>" or "<step>/<labels>", relative to the workspace
  std::string base_name;    ///< "<step>" or "<step>_<labels>": script/out/err names
  std::uint64_t count = 1;  ///< samples (1 for an unsampled step, 0 for a fan-out step's)
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
  /// Total tasks (samples summed over instances; fan-out instances count 0).
  std::uint64_t total_tasks() const;
  /// Every instance's sample count as a store starts with it: kCountUnknown for fan-out ones.
  std::vector<std::uint64_t> start_counts() const;
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
};

/// Steps in an order where every step comes after the steps it depends on.
std::vector<StepId> topological_order(const spec::StudySpec& spec);

}  // namespace merlin
