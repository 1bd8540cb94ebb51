#pragma once
/// Reading a `merlin collect` HDF5 file back (docs/collect.md): the input columns and target
/// fields a trainer needs. Only this folder sees HDF5's types.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/data/dataset_columns.h"
#include "merlin/core/util/result.h"

namespace merlin::hdf5 {

/// The rows of `path` a trainer may use, and their inputs, without keeping the targets: among
/// the first `rows_committed` rows, those whose `/status` is 1 and with no NaN in the chosen
/// `/inputs` columns (`inputs`; all of them, in file order, when empty) nor in the fields named
/// in `targets` (`/fields/<name>`, flattened per row; streamed in blocks of rows to check, not
/// kept: memory is the inputs and one block), nor a missing element in a target's mask
/// (`/missing/<name>`: integer and bool fields, whose missing values are stored as 0). A
/// string field is not a target (kBadInput). Errors (kBadInput) name the file and what is
/// wrong: no such file, not a merlin-collect file, no `/inputs`, an unknown column or field
/// (with the names there are).
Result<data::DatasetColumns> read_dataset_index(const std::string& path,
                                                const std::vector<std::string>& inputs,
                                                const std::vector<std::string>& targets);

/// The flattened `targets` of the given file rows (ascending or not), rows × width row-major in
/// the order given, read block by block (memory: the result and one block).
Result<std::vector<double>> read_dataset_targets(const std::string& path,
                                                 const std::vector<std::string>& targets,
                                                 const std::vector<std::uint64_t>& file_rows);

/// read_dataset_index with every kept row's targets.
Result<data::DatasetColumns> read_dataset_columns(const std::string& path,
                                                  const std::vector<std::string>& inputs,
                                                  const std::vector<std::string>& targets);

}  // namespace merlin::hdf5
