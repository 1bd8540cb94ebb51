#include "merlin/core/spec/parameter_grid.h"

#include <limits>

namespace merlin::spec {

std::uint64_t cartesian_size(const std::vector<Parameter>& params) {
  if (params.empty()) return 0;
  std::uint64_t n = 1;
  for (const auto& p : params) {
    const std::uint64_t k = p.values.size();
    if (k != 0 && n > std::numeric_limits<std::uint64_t>::max() / k)
      return std::numeric_limits<std::uint64_t>::max();
    n *= k;
  }
  return n;
}

void expand_cartesian(std::vector<Parameter>& params) {
  const std::uint64_t total = cartesian_size(params);
  if (total == 0) return;
  // Parameter i repeats each value `stride` times, where stride is the product of the sizes
  // after it, and its whole list total / (size * stride) times.
  std::uint64_t stride = 1;
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    const std::vector<std::string> values = std::move(it->values);
    it->values.clear();
    it->values.reserve(total);
    for (std::uint64_t c = 0; c < total; ++c)
      it->values.push_back(values[(c / stride) % values.size()]);
    stride *= values.size();
  }
}

}  // namespace merlin::spec
