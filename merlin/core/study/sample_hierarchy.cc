#include "merlin/core/study/sample_hierarchy.h"

#include <algorithm>

namespace merlin {

SampleHierarchy::SampleHierarchy(std::uint64_t samples, int level_max_dirs)
    : n_(samples), base_(std::max(2, level_max_dirs)) {
  digits_ = static_cast<int>(std::to_string(base_).size());
  // Merlin's uniform_directories: grow L^k until it covers N, the number of levels is k.
  std::uint64_t cover = 1;
  while (cover < n_) {
    cover *= static_cast<std::uint64_t>(base_);
    ++levels_;
  }
  level_size_.assign(levels_, 1);
  for (int j = levels_ - 2; j >= 0; --j) level_size_[j] = level_size_[j + 1] * base_;
}

void SampleHierarchy::append_path(std::string& out, std::uint64_t sample) const {
  char buf[24];
  for (int j = 0; j < levels_; ++j) {
    std::uint64_t digit = (sample / level_size_[j]) % static_cast<std::uint64_t>(base_);
    if (j > 0) out.push_back('/');
    int len = 0;
    do {
      buf[len++] = static_cast<char>('0' + digit % 10);
      digit /= 10;
    } while (digit > 0);
    for (int pad = len; pad < digits_; ++pad) out.push_back('0');
    while (len > 0) out.push_back(buf[--len]);
  }
}

std::string SampleHierarchy::path(std::uint64_t sample) const {
  std::string out;
  out.reserve(static_cast<std::size_t>(levels_ * (digits_ + 1)));
  append_path(out, sample);
  return out;
}

std::string SampleHierarchy::glob() const {
  std::string out;
  for (int j = 0; j < levels_; ++j) out += "*/";
  return out;
}

std::string SampleHierarchy::all_paths(char sep) const {
  std::string out;
  out.reserve(static_cast<std::size_t>(n_ * (levels_ * (digits_ + 1))));
  for (std::uint64_t i = 0; i < n_; ++i) {
    if (i > 0) out.push_back(sep);
    append_path(out, i);
  }
  return out;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> SampleHierarchy::split(
    std::uint64_t lo, std::uint64_t hi) const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  if (hi <= lo + 1) {
    out.emplace_back(lo, hi);
    return out;
  }
  // The child width: the largest directory size that still splits the range into >= 2 parts,
  // so that a range aligned to a directory splits into its sub-directories.
  // A misaligned range of exactly L^k would need L + 1 pieces at width L^(k-1): go one up.
  std::uint64_t width = 1;
  while (width * base_ < hi - lo) width *= base_;
  auto pieces = [&](std::uint64_t w) { return (hi - 1) / w - lo / w + 1; };
  if (pieces(width) > static_cast<std::uint64_t>(base_)) width *= base_;
  for (std::uint64_t a = lo; a < hi;) {
    std::uint64_t b = std::min(hi, (a / width + 1) * width);
    out.emplace_back(a, b);
    a = b;
  }
  return out;
}

}  // namespace merlin
