#pragma once
/// HDF5 dataset files for `merlin collect` and `merlin sample -o x.h5` (libhdf5, serial).
/// The layout (docs/collect.md): root attributes `format` = "merlin-collect",
/// `format_version`, `study`, `spec`, `vars`, `workspace`, `step`, `files`, `fields`,
/// `merlin_version`, `hdf5_version`, `created`, `updated`, `rows_committed`; datasets
/// `/sample_ids` (uint64), `/status` (uint8), `/inputs` (float64, rows × columns, attribute
/// `columns`; absent for a study without sample columns) and `/fields/<name>` (float64,
/// rows × shape, NaN where a sample has no value). Every dataset is chunked, extendible along
/// rows and gzip-compressed (with shuffle). Only this folder sees HDF5's types.
#include <memory>

#include "merlin/core/data/dataset_sink.h"

namespace merlin::hdf5 {

/// The HDF5 DatasetFormat. Files it makes are of the latest file format and written with
/// SWMR: readers may open them (SWMR read) while a collect appends. One writer at a time: a
/// collect holds a writer lock on its file; a second is refused.
std::unique_ptr<data::DatasetFormat> hdf5_format();

}  // namespace merlin::hdf5
