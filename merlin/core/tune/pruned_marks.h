#pragma once
/// Which trials of a search were pruned (docs/tuning.md, "Pruning"): the worker that ended one
/// leaves `MERLIN_PRUNED` in its trial's directory; the store only knows the task ended
/// without a result. Reads the instance's trial directories (one stat each).
#include <cstdint>
#include <set>
#include <string>

#include <vector>

#include "merlin/core/tune/rung_book.h"
#include "merlin/core/tune/tune_shape.h"

namespace merlin::tune {

inline constexpr const char* kPrunedMarker = "MERLIN_PRUNED";

/// The trials of the search in `instance_dir` whose directory holds kPrunedMarker. Only the
/// trials that can be (stopped without a result at their rung) are looked at.
std::set<std::uint32_t> pruned_trials(const std::string& instance_dir, const TuneShape& shape,
                                      const std::vector<TrialStanding>& standings);

}  // namespace merlin::tune
