#include "workers/lease_fence.h"

#include <algorithm>

namespace merlin {

bool lease_lapsed(const LeaseTerms& terms, FenceClock::time_point now,
                  FenceClock::time_point confirmed,
                  std::optional<FenceClock::time_point> last_beat) {
  if (terms.lease.count() <= 0) return false;
  if (now - confirmed >= terms.lease) return true;
  return terms.dead_after.count() > 0 && last_beat && now - *last_beat >= terms.dead_after;
}

std::chrono::milliseconds fence_check_interval(const LeaseTerms& terms) {
  using std::chrono::milliseconds;
  if (terms.lease.count() <= 0) return milliseconds(0);
  auto shortest = terms.lease;
  if (terms.dead_after.count() > 0) shortest = std::min(shortest, terms.dead_after);
  return std::clamp(shortest / 10, milliseconds(10), milliseconds(1000));
}

}  // namespace merlin
