#pragma once
/// The words of the `tune:` methods in a spec (docs/tuning.md), in TuneMethod's order: read
/// by the spec reader, written by best.json and `merlin status`.
#include "merlin/core/spec/study_spec.h"

namespace merlin::spec {

inline constexpr const char* kTuneMethodNames[] = {"random", "sobol", "asha", "hyperband"};

inline const char* tune_method_name(TuneMethod m) {
  return kTuneMethodNames[static_cast<int>(m)];
}

}  // namespace merlin::spec
