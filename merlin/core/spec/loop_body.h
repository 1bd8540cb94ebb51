#pragma once
/// The steps a `loop` runs again (docs/fanout.md): those on a dependency path from its
/// `back_to` step to the deciding step, both included.
#include <cstddef>
#include <optional>
#include <vector>

#include "merlin/core/spec/study_spec.h"

namespace merlin::spec {

/// Indexes (in spec order) of the body of the loop of step `decider`, or nullopt when that step
/// has no loop, its `back_to` names no step, or `back_to` is not `decider` or an ancestor of it
/// (through `depends`, funnels included). Unknown dependency names are ignored.
std::optional<std::vector<std::size_t>> loop_body(const StudySpec& spec, std::size_t decider);

}  // namespace merlin::spec
