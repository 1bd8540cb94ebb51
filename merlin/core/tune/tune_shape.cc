#include "merlin/core/tune/tune_shape.h"

#include <algorithm>
#include <cmath>

#include "merlin/core/util/value_format.h"

namespace merlin::tune {

std::uint32_t TuneShape::bracket_of(std::uint32_t trial) const {
  auto it = std::upper_bound(bracket_first.begin(), bracket_first.end(), trial);
  return static_cast<std::uint32_t>(it - bracket_first.begin()) - 1;
}

std::uint32_t TuneShape::bracket_size(std::uint32_t b) const {
  const std::uint32_t end = b + 1 < bracket_first.size() ? bracket_first[b + 1] : trials;
  return end - bracket_first[b];
}

std::string TuneShape::budget_text(std::uint32_t rung) const {
  if (rung >= budgets.size()) return "";
  const double b = budgets[rung];
  if (b == std::floor(b) && std::fabs(b) < 9.0e15) return samples::format_int(std::int64_t(b));
  return samples::format_float64(b);
}

TuneShape shape_of(const spec::TuneSpec& spec) {
  TuneShape s;
  s.trials = std::max<std::uint32_t>(spec.trials, 1);
  s.maximize = spec.metric.maximize;
  if (spec.budget) {
    s.eta = spec.budget->eta;
    const double lo = spec.budget->min, hi = spec.budget->max;
    const bool halving =
        spec.method == spec::TuneMethod::kAsha || spec.method == spec::TuneMethod::kHyperband;
    if (halving && lo > 0 && s.eta > 1) {
      // min * eta^k below max (with a little slack for rounding: 1 * 3^3 is 27, not 26.99..).
      for (double b = lo; b < hi * (1 - 1e-9) && s.budgets.size() < 64; b *= s.eta)
        s.budgets.push_back(b);
    }
    s.budgets.push_back(hi);
  }
  s.rungs = static_cast<std::uint32_t>(std::max<std::size_t>(s.budgets.size(), 1));
  if (spec.method == spec::TuneMethod::kHyperband && s.rungs > 1) {
    const std::uint32_t want = spec.brackets == 0 ? s.rungs : std::min(spec.brackets, s.rungs);
    const std::uint32_t nb = std::min(want, s.trials);
    std::vector<double> weight(nb);
    double total = 0;
    for (std::uint32_t b = 0; b < nb; ++b) {
      weight[b] = std::pow(s.eta, double(s.rungs - 1 - b)) / double(s.rungs - b);
      total += weight[b];
    }
    // Largest remainder, each bracket at least one trial.
    std::vector<std::uint32_t> size(nb, 1);
    std::uint32_t left = s.trials - nb;
    std::vector<std::pair<double, std::uint32_t>> rest;
    std::uint32_t given = 0;
    for (std::uint32_t b = 0; b < nb; ++b) {
      const double share = weight[b] / total * left;
      size[b] += static_cast<std::uint32_t>(share);
      given += static_cast<std::uint32_t>(share);
      rest.emplace_back(share - std::floor(share), b);
    }
    std::sort(rest.begin(), rest.end(), [](auto a, auto b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (std::uint32_t i = 0; given < left; ++i, ++given) size[rest[i % nb].second] += 1;
    s.bracket_first.assign(1, 0);
    for (std::uint32_t b = 0; b + 1 < nb; ++b) s.bracket_first.push_back(s.bracket_first[b] + size[b]);
  }
  return s;
}

}  // namespace merlin::tune
