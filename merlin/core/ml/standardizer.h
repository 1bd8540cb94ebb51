#pragma once
/// Per-column mean and standard deviation: inputs and targets are trained on as
/// (x - mean) / std, and predictions are mapped back. Fitted on the training split only, saved
/// with the model.
#include <cstddef>
#include <vector>

namespace merlin::ml {

struct Standardizer {
  std::vector<double> mean;
  std::vector<double> std;  ///< population std; 1 for a constant column (it maps to 0)

  std::size_t columns() const { return mean.size(); }
  /// (x - mean) / std of one row (`columns()` values at `row`) into `out` (as floats).
  void apply(const double* row, float* out) const;
  /// x * std + mean, in place, for one row.
  void invert(double* row) const;
};

/// Fits on the rows `which` of a row-major `data` of `columns` columns.
Standardizer fit_standardizer(const std::vector<double>& data, std::size_t columns,
                              const std::vector<std::size_t>& which);

}  // namespace merlin::ml
