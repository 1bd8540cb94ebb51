#pragma once
/// The HDF5 DatasetSink (see hdf5_format.h for the file's layout).
#include <memory>
#include <string>

#include "merlin/core/data/dataset_sink.h"

namespace merlin::hdf5 {

/// An existing file: read-only until the first append, which reopens it for writing and drops
/// rows beyond `rows_committed` first. kBadInput naming the file when it is not a collected
/// dataset.
Result<std::unique_ptr<data::DatasetSink>> open_dataset(const std::string& path);

/// A new file, built as `<dir>/.<name>.tmp.<pid>` and renamed to `path` at the first append;
/// removed if the sink is destroyed before.
Result<std::unique_ptr<data::DatasetSink>> create_dataset(const std::string& path,
                                                          const data::DatasetLayout& layout,
                                                          const data::DatasetOrigin& origin);

}  // namespace merlin::hdf5
