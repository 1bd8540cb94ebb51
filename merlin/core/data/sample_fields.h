#pragma once
/// What one sample's output files hold, as numbers: named fields, each an array of float64
/// of some shape (a scalar has shape ()), values in C order. `merlin collect` reads each
/// sample's files into these and writes them as one row of each field's dataset.
#include <cstdint>
#include <string>
#include <vector>

namespace merlin::data {

struct Field {
  std::string name;                  ///< "result/energy": the file's stem, then keys or columns
  std::vector<std::uint64_t> shape;  ///< per sample; empty for a scalar
  std::vector<double> values;        ///< product(shape) values, C order

  /// product(shape): 1 for a scalar.
  std::uint64_t size() const {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

using SampleFields = std::vector<Field>;

/// "(3, 2)", "()" for a scalar: shapes in messages.
std::string shape_text(const std::vector<std::uint64_t>& shape);

}  // namespace merlin::data
