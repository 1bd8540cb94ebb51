#pragma once
/// How `merlin collect` compresses a new file's field datasets (--compression): none, gzip
/// (deflate, levels 1-9, after HDF5's shuffle filter) or lz4 (HDF5's registered plugin filter
/// 32004: readers need the plugin, e.g. Debian's hdf5-filter-plugin). zstd is refused: the
/// plugin readers have here lacks it. Pure parsing; the adapter writes it.
#include <string>

#include "merlin/core/util/result.h"

namespace merlin::data {

struct Compression {
  enum class Kind { kNone, kGzip, kLz4 };
  Kind kind = Kind::kGzip;
  int level = 4;  ///< gzip 1-9; unused otherwise
};

/// "none", "gzip", "gzip:6", "lz4". kBadInput otherwise (zstd included), saying what is.
Result<Compression> parse_compression(const std::string& text);
/// "gzip:4", "lz4", "none": what parse_compression reads back.
std::string compression_text(const Compression& c);

}  // namespace merlin::data
