#include "merlin/core/ml/standardizer.h"

#include <cmath>

namespace merlin::ml {

void Standardizer::apply(const double* row, float* out) const {
  for (std::size_t c = 0; c < mean.size(); ++c)
    out[c] = static_cast<float>((row[c] - mean[c]) / std[c]);
}

void Standardizer::invert(double* row) const {
  for (std::size_t c = 0; c < mean.size(); ++c) row[c] = row[c] * std[c] + mean[c];
}

Standardizer fit_standardizer(const std::vector<double>& data, std::size_t columns,
                              const std::vector<std::size_t>& which) {
  Standardizer s{std::vector<double>(columns, 0.0), std::vector<double>(columns, 0.0)};
  if (which.empty()) {
    s.std.assign(columns, 1.0);
    return s;
  }
  const double n = static_cast<double>(which.size());
  for (auto r : which)
    for (std::size_t c = 0; c < columns; ++c) s.mean[c] += data[r * columns + c];
  for (auto& m : s.mean) m /= n;
  for (auto r : which)
    for (std::size_t c = 0; c < columns; ++c) {
      const double d = data[r * columns + c] - s.mean[c];
      s.std[c] += d * d;
    }
  for (auto& v : s.std) {
    v = std::sqrt(v / n);
    if (!(v > 1e-12)) v = 1.0;  // constant column (or no spread): leave it centred only
  }
  return s;
}

}  // namespace merlin::ml
