#pragma once
// A study built from inline YAML, the way `merlin run` builds it (spec → tokens → graph →
// renderer), without touching the disk: the workspace is the fixed path "/ws" and the sample
// table is a FakeSampleTable over the spec's column labels.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "merlin/core/spec/study_spec.h"
#include "merlin/core/study/study_graph.h"
#include "merlin/core/study/study_tokens.h"
#include "merlin/core/study/task_renderer.h"
#include "tests/fakes/fake_sample_table.h"

namespace merlin::testing {

inline constexpr const char* kTestWorkspace = "/ws";

/// Owns everything the graph and renderer point into; never moved (held by unique_ptr).
struct TestStudy {
  spec::StudySpec spec;
  StudyTokens tokens;
  std::unique_ptr<FakeSampleTable> table;  ///< null when the spec has no merlin.samples
  std::unique_ptr<StudyGraph> graph;
  std::unique_ptr<TaskRenderer> renderer;

  /// The instance of step `name` for parameter combination `combo` (0 for unparameterised).
  InstanceId instance(const std::string& name, std::uint32_t combo = 0) const;
  /// Samples per instance, in instance order (what a StateStore is built with).
  std::vector<std::uint64_t> counts() const;
};

/// Parses `yaml` (as "spec.yaml"), resolves tokens into workspace "/ws" and builds the graph
/// with `samples` rows. Records a test failure with the error text and returns null when any
/// stage fails.
/// `workspace` replaces "/ws" (a real directory, for tests that write merlin_info/).
std::unique_ptr<TestStudy> make_study(std::string_view yaml, std::uint64_t samples = 0,
                                      const std::string& workspace = kTestWorkspace);

}  // namespace merlin::testing
