#include "merlin/core/util/interval_set.h"

#include <iterator>

namespace merlin {

bool IntervalSet::contains(std::uint64_t x) const {
  auto it = runs_.upper_bound(x);
  if (it == runs_.begin()) return false;
  --it;
  return x < it->second;
}

bool IntervalSet::insert(std::uint64_t x) {
  // Intervals are half-open, so the largest value has no room: ids never get near it.
  if (x == UINT64_MAX) return false;
  auto next = runs_.upper_bound(x);
  if (next != runs_.begin()) {
    auto prev = std::prev(next);
    if (x < prev->second) return false;
    if (prev->second == x) {  // extend the run on the left
      prev->second = x + 1;
      if (next != runs_.end() && next->first == x + 1) {
        prev->second = next->second;
        runs_.erase(next);
      }
      ++size_;
      return true;
    }
  }
  if (next != runs_.end() && next->first == x + 1) {  // extend the run on the right
    std::uint64_t hi = next->second;
    runs_.erase(next);
    runs_.emplace(x, hi);
  } else {
    runs_.emplace(x, x + 1);
  }
  ++size_;
  return true;
}

}  // namespace merlin
