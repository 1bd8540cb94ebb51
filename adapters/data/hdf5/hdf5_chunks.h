#pragma once
/// Whole chunks of a field dataset written directly (H5Dwrite_chunk), compressed here the way
/// the dataset's filter pipeline would have, by several threads at once: HDF5 compresses
/// chunks one at a time in the writing thread, and copies each through its chunk cache.
/// Datasets of other filters (or on a big-endian host) are not written this way.
#include <cstdint>

#include "adapters/data/hdf5/hdf5_handle.h"

namespace merlin::hdf5 {

/// What the dataset's filters are, as far as direct writing goes.
struct ChunkCodec {
  enum class Kind { kRaw, kGzip, kLz4, kOther };
  Kind kind = Kind::kOther;
  int level = 0;                ///< deflate's
  bool shuffle = false;         ///< HDF5's shuffle before deflate
  std::uint64_t chunk_rows = 0;  ///< rows per chunk
};

/// The codec of an open chunked dataset (kOther for filters not written here).
ChunkCodec chunk_codec(hid_t dataset);

/// One chunk's bytes as the filter pipeline stores them (`element` bytes an element).
void encode_chunk(const ChunkCodec& c, const unsigned char* data, std::size_t bytes,
                  std::size_t element, std::vector<unsigned char>& out);

/// Writes `chunks` whole chunks from row `first_row` (a multiple of c.chunk_rows; the dataset
/// already extends past them) from `data` (row-major, `row_bytes` a row), encoding them with
/// up to `threads` threads. Memory: the encoded chunks of one round of `threads` chunks... at
/// most `threads` * 2 chunks at a time.
Result<void> write_whole_chunks(hid_t dataset, const ChunkCodec& c, std::uint64_t first_row,
                                std::uint64_t chunks, std::size_t row_bytes, std::size_t element,
                                const unsigned char* data, unsigned threads);

}  // namespace merlin::hdf5
