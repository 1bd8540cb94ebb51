#pragma once
/// A trial's configuration: one value per dimension of the search space, from the trial's
/// number alone (counter-based random numbers, or the trial-th Sobol point), so any worker
/// renders any trial the same way and nothing per trial is stored.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/spec/study_spec.h"

namespace merlin::tune {

/// The values of trial `trial`, in the order of `spec.space`, as the token texts: integers
/// without a point, reals as Python prints a float, choices as written. `random`, `asha` and
/// `hyperband` draw uniformly (log-uniformly for log_uniform) with `spec.seed`; `sobol` takes
/// the scrambled Sobol point of the trial's index (at most sampling::kSobolMaxDims, 3,667,
/// dimensions: more fall back to random).
std::vector<std::string> trial_values(const spec::TuneSpec& spec, std::uint32_t trial);

}  // namespace merlin::tune
