#pragma once
/// Selected columns of a `merlin collect` dataset, in memory: what a trainer reads. Only the
/// rows that are committed (`rows_committed`) and ok (`/status` == 1) are kept.
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
  std::vector<double> inputs;             ///< rows × input_names.size(), row-major
  std::vector<double> targets;            ///< rows × target_names.size(), row-major
  std::uint64_t rows_committed = 0;       ///< rows of the file that were considered
  std::size_t rows() const { return sample_ids.size(); }
};

}  // namespace merlin::data
