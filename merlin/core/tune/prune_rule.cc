#include "merlin/core/tune/prune_rule.h"

#include <algorithm>
#include <cmath>

namespace merlin::tune {
namespace {

// a strictly better than b: NaN is worse than any number, and not better than NaN.
bool better(double a, double b, bool maximize) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return maximize ? a > b : a < b;
}

}  // namespace

std::optional<double> value_at(const std::vector<data::MetricPoint>& curve, double budget) {
  std::optional<double> out;
  for (const auto& p : curve)
    if (p.budget <= budget) out = p.value;  // file order: a later line at the same budget wins
  return out;
}

std::optional<data::MetricPoint> newest_between(const std::vector<data::MetricPoint>& curve,
                                                double from, double to) {
  if (curve.empty()) return std::nullopt;
  const auto& last = curve.back();
  if (last.budget > from && last.budget < to) return last;
  return std::nullopt;
}

PruneVerdict prune_verdict(data::MetricPoint at, std::vector<double> others, double eta,
                           bool maximize) {
  PruneVerdict v;
  v.budget = at.budget;
  v.value = at.value;
  v.compared = others.size();
  v.keep = eta >= 1 ? static_cast<std::size_t>(std::floor(double(others.size() + 1) / eta)) : 0;
  if (v.keep == 0) return v;
  std::sort(others.begin(), others.end(),
            [maximize](double a, double b) { return better(a, b, maximize); });
  v.cut = others[v.keep - 1];
  v.prune = better(v.cut, at.value, maximize);
  return v;
}

}  // namespace merlin::tune
