#pragma once
/// The HDF5 types of collect's field datasets (field_type.h's DType) and the typed writes of
/// their columns. Only adapters/data/hdf5 includes this.
#include <optional>

#include "adapters/data/hdf5/hdf5_handle.h"
#include "merlin/core/data/field_type.h"

namespace merlin::hdf5 {

/// The type stored in the file: little-endian IEEE floats and integers, uint8 for bool, a
/// variable-length UTF-8 string.
Hid file_type_of(data::DType t);
/// The type of the values in memory (native byte order; the same string type).
Hid mem_type_of(data::DType t);
/// The DType of an open field dataset: its `dtype` attribute when it has one, else from its
/// HDF5 type (a file of an earlier merlin: float64). nullopt for a type collect does not write.
std::optional<data::DType> dataset_dtype(hid_t dataset);

/// Writes rows [first, first + rows) of a column holding `width` elements a row, from
/// element `from` of `col` (bytes or strings as the type says); grows the dataset when
/// `grow` (an append), else writes over existing rows.
Result<void> write_column(hid_t dataset, data::DType t, std::uint64_t first, std::uint64_t rows,
                          std::uint64_t width, const data::FieldColumn& col, std::uint64_t from,
                          bool grow);

/// Reads the dataset's row `row` whatever its type (the check a damaged file fails).
Result<void> read_any_row(hid_t dataset, std::uint64_t row);

}  // namespace merlin::hdf5
