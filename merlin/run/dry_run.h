#pragma once
/// `merlin run --dry`: lays out every task directory and script of a study, runs nothing.
#include <cstdint>

#include "merlin/run/prepared_study.h"

namespace merlin::run {

/// Writes all scripts with `threads` threads; returns the number of tasks laid out.
Result<std::uint64_t> lay_out_study(const PreparedStudy& study, int threads, bool progress);

}  // namespace merlin::run
