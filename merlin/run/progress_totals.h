#pragma once
/// "done of total" for a whole study: the one sum of its instances' progress that status
/// lines, restart, monitor, the fleet's progress and lost-study checks print and compare.
#include <cstdint>
#include <vector>

#include "merlin/core/broker/state_store.h"

namespace merlin::run {

struct ProgressTotals {
  std::uint64_t done = 0;
  std::uint64_t total = 0;  ///< InstanceProgress::expected(): 1 for a fan-out not counted yet
  std::uint64_t failed = 0;
  bool operator==(const ProgressTotals&) const = default;
};

/// The sums over `progress` of done, expected() and failed.
ProgressTotals totals_of(const std::vector<InstanceProgress>& progress);

}  // namespace merlin::run
