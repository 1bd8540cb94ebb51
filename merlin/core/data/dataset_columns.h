#pragma once
/// Selected columns of a `merlin collect` dataset, in memory: what a trainer reads. Only the
/// rows that are committed (`rows_committed`), ok (`/status` == 1) and without NaN in a chosen
/// column are kept.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace merlin::data {

struct DatasetColumns {
  std::vector<std::string> input_names;   ///< the `/inputs` columns chosen, in the order asked
  std::vector<std::string> target_names;  ///< one per flattened target value: "result/range",
                                          ///< or "trajectory[5]" for element 5 of a field
  std::vector<std::uint64_t> sample_ids;  ///< per kept row
  std::vector<std::uint64_t> file_rows;   ///< per kept row: its row in the file
  std::vector<double> inputs;             ///< rows × input_names.size(), row-major
  /// rows × target_names.size(), row-major; empty in an index (read_dataset_index), whose
  /// targets are read later, for some rows only.
  std::vector<double> targets;
  std::uint64_t rows_committed = 0;  ///< rows of the file that were considered
  std::size_t rows() const { return sample_ids.size(); }
};

}  // namespace merlin::data
