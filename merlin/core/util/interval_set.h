#pragma once
/// A set of integers stored as disjoint half-open intervals, merged on insert. Memory is
/// O(gaps), not O(members): a million samples committed mostly in order stay a few intervals.
#include <cstdint>
#include <map>

namespace merlin {

class IntervalSet {
 public:
  /// Inserts x; returns false if it was already present (or is UINT64_MAX, not representable).
  bool insert(std::uint64_t x);
  bool contains(std::uint64_t x) const;
  std::uint64_t size() const { return size_; }
  std::size_t intervals() const { return runs_.size(); }

 private:
  std::map<std::uint64_t, std::uint64_t> runs_;  ///< lo -> hi (exclusive)
  std::uint64_t size_ = 0;
};

}  // namespace merlin
