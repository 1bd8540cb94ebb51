#pragma once
/// How `merlin collect` cuts rows into HDF5 chunks and appends, and how many samples it reads
/// ahead: sizes in bytes so that memory stays bounded whatever the row size (a scalar or a
/// 128x128 image) and the sample count. Pure arithmetic.
#include <cstdint>

#include "merlin/core/data/dataset_sink.h"

namespace merlin::data {

/// Field data appended at once, at most (the batch; the reader queue holds about as much).
constexpr std::uint64_t kBatchBytes = 16u << 20;

/// Rows per chunk for rows of `row_bytes`: about 1 MiB a chunk, 1 to 4096 rows.
std::uint64_t chunk_rows_for(std::uint64_t row_bytes);

/// Bytes of one row of the layout's fields (a string counted as 16 bytes, a mask byte beside
/// each element of a field without NaN); at least 1.
std::uint64_t row_bytes_of(const DatasetLayout& layout);

/// The widest field's row bytes (its chunks are the fewest rows); at least 1.
std::uint64_t widest_row_bytes_of(const DatasetLayout& layout);

/// Rows per append: `asked` (--batch), but at most kBatchBytes of field data, and, once it
/// holds one chunk of the widest field, a multiple of that chunk's rows (whole chunks are
/// compressed and written directly). At least 1.
std::uint64_t batch_rows_for(std::uint64_t asked, const DatasetLayout& layout);

/// Samples read ahead of the writer: `asked`, at most about kBatchBytes of field data, at
/// least 16.
std::uint64_t queue_items_for(std::uint64_t asked, const DatasetLayout& layout);

}  // namespace merlin::data
