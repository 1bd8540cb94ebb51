#pragma once
/// Reading a `merlin collect` HDF5 file back (docs/collect.md): the input columns and target
/// fields a trainer needs. Only this folder sees HDF5's types.
#include <string>
#include <vector>

#include "merlin/data/dataset_columns.h"
#include "merlin/util/result.h"

namespace merlin::hdf5 {

/// Reads the rows of `path` among the first `rows_committed` whose `/status` is 1: the `/inputs`
/// columns named in `inputs` (all of them, in file order, when empty) and the fields named in
/// `targets` (`/fields/<name>`, flattened per row). Rows with a NaN in a chosen column are
/// dropped too (a value the sample did not have). Errors (kBadInput) name the file and what is
/// wrong: no such file, not a merlin-collect file, no `/inputs`, an unknown column or field
/// (with the names there are).
Result<data::DatasetColumns> read_dataset_columns(const std::string& path,
                                                  const std::vector<std::string>& inputs,
                                                  const std::vector<std::string>& targets);

}  // namespace merlin::hdf5
