#pragma once
/// Merlin's sample directory layout, as arithmetic on the sample id (no tree is built).
/// With N samples and L = level_max_dirs, there are k levels, the least k with L^k >= N
/// (0 levels when N <= 1); sample i lives in `d_1/d_2/.../d_k` with d_j the base-L digits of i,
/// each zero-padded to the number of digits of L ("00".."24" for L = 25).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace merlin {

class SampleHierarchy {
 public:
  SampleHierarchy() = default;
  SampleHierarchy(std::uint64_t samples, int level_max_dirs);

  std::uint64_t samples() const { return n_; }
  int levels() const { return levels_; }
  int level_max_dirs() const { return base_; }

  /// "00/03" for sample 3 of 100 with L = 25; "" with 0 levels.
  std::string path(std::uint64_t sample) const;
  /// Appends path(sample) to `out` (no allocation when `out` has room).
  void append_path(std::string& out, std::uint64_t sample) const;
  /// "*/" once per level (Merlin's $(MERLIN_GLOB_PATH)).
  std::string glob() const;
  /// Every sample path, separated by `sep` ($(MERLIN_PATHS_ALL) uses a space).
  std::string all_paths(char sep = ' ') const;

  /// Splits [lo, hi) into at most L child ranges aligned to the hierarchy (each child is one
  /// sub-directory's worth of samples). A range of one sample is not split (returns itself).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> split(std::uint64_t lo,
                                                             std::uint64_t hi) const;

 private:
  std::uint64_t n_ = 0;
  int base_ = 25;
  int levels_ = 0;
  int digits_ = 2;
  std::vector<std::uint64_t> level_size_;  ///< samples under one directory of level j
};

}  // namespace merlin
