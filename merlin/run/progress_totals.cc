#include "merlin/run/progress_totals.h"

namespace merlin::run {

ProgressTotals totals_of(const std::vector<InstanceProgress>& progress) {
  ProgressTotals t;
  for (const auto& i : progress) {
    t.done += i.done;
    t.total += i.expected();
    t.failed += i.failed;
  }
  return t;
}

}  // namespace merlin::run
