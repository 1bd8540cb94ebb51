#pragma once
/// The one place the CLI names a dataset file format's adapter (as backends.cc is for
/// brokers): merlin collect's output and `merlin sample -o x.h5`.
#include <memory>
#include <string>

#include "merlin/core/data/dataset_sink.h"

namespace merlin::cli {

/// True for a name ending in .h5 or .hdf5.
bool is_hdf5_path(const std::string& path);

/// The HDF5 format (adapters/data/hdf5); null in a build made with MERLIN_WITH_HDF5=OFF.
std::unique_ptr<data::DatasetFormat> hdf5_dataset_format();

/// What to tell a user who names an HDF5 file (`path`) when hdf5_dataset_format() is null.
std::string no_hdf5_message(const std::string& path);

}  // namespace merlin::cli
