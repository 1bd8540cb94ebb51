#pragma once
/// Strong ids for the task graph.
#include <cstdint>
#include <functional>

namespace merlin {

/// Index of a step in the spec's `study` list.
struct StepId {
  std::uint32_t v = 0;
  friend bool operator==(StepId, StepId) = default;
  friend auto operator<=>(StepId, StepId) = default;
};

/// A step instance: one step for one parameter combination (or the only one).
struct InstanceId {
  std::uint32_t v = 0;
  friend bool operator==(InstanceId, InstanceId) = default;
  friend auto operator<=>(InstanceId, InstanceId) = default;
};

/// Global sample index 0..N-1; unsampled instances have exactly one "sample", 0.
using SampleId = std::uint64_t;

/// The sample count of an instance whose samples are decided at run time (a `samples_from`
/// step, docs/fanout.md) until its release records one (StateStore::set_count).
inline constexpr std::uint64_t kCountUnknown = ~std::uint64_t{0};

}  // namespace merlin
