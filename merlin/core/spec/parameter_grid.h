#pragma once
/// `merlin.combine_parameters: cartesian`: every combination of the `global.parameters` lists,
/// rewritten as the zipped lists the rest of merlin expects (one value per combination in each
/// list), so nothing past the loader knows about grids.
#include <cstdint>
#include <vector>

#include "merlin/core/spec/study_spec.h"

namespace merlin::spec {

/// The most combinations a grid may have: the task graph holds one instance per step and
/// combination, so a bigger ensemble belongs in `merlin.samples`.
inline constexpr std::uint64_t kMaxParameterCombinations = 100'000;

/// Combinations of the lists (their sizes multiplied), saturating at UINT64_MAX; 0 when there
/// are no parameters.
std::uint64_t cartesian_size(const std::vector<Parameter>& params);

/// Replaces each list by its column of the grid, the last parameter varying fastest (as
/// Python's itertools.product): {A: [1,2], B: [x,y]} → A: [1,1,2,2], B: [x,y,x,y].
/// Precondition: cartesian_size(params) <= kMaxParameterCombinations.
void expand_cartesian(std::vector<Parameter>& params);

}  // namespace merlin::spec
