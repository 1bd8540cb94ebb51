#pragma once
// A SampleTable computed on the fly: cell (row, col) reads "<label><row>" where label is the
// column's name given at construction, unless a cell was set explicitly. O(1) memory per table,
// so a million-row study costs nothing.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/samples/sample_table.h"

namespace merlin::testing {

class FakeSampleTable : public samples::SampleTable {
 public:
  /// `rows` samples over columns named `labels` (values "<label><row>", e.g. "A3").
  FakeSampleTable(std::size_t rows, std::vector<std::string> labels)
      : rows_(rows), labels_(std::move(labels)) {}

  /// Overrides one cell.
  void set(std::size_t row, std::size_t col, std::string value) {
    cells_[{row, col}] = std::move(value);
  }

  std::size_t rows() const override { return rows_; }
  std::size_t columns() const override { return labels_.size(); }
  std::string value(std::size_t row, std::size_t col) const override {
    auto it = cells_.find({row, col});
    if (it != cells_.end()) return it->second;
    return labels_[col] + std::to_string(row);
  }

 private:
  std::size_t rows_;
  std::vector<std::string> labels_;
  std::map<std::pair<std::size_t, std::size_t>, std::string> cells_;
};

}  // namespace merlin::testing
