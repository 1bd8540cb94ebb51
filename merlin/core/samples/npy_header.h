#pragma once
/// The header of a `.npy` file (format versions 1.0, 2.0, 3.0): magic, version, header length,
/// then a Python dict literal {'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }.
/// See numpy/lib/format.py for the format's definition.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::samples {

enum class NpyKind { kBool, kInt, kUInt, kFloat, kBytes, kUnicode };

/// One element type. `item_size` is in bytes (a `U<n>` item is 4n bytes).
struct NpyDtype {
  NpyKind kind = NpyKind::kFloat;
  std::size_t item_size = 8;
  bool big_endian = false;  ///< byte order of multi-byte items ('>' or '=' on a BE host)
  std::string descr;        ///< as written, for messages, e.g. "<f8"
};

struct NpyHeader {
  NpyDtype dtype;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::size_t data_offset = 0;  ///< where the array data starts in the file
};

/// Parses a descr string such as "<f8", "|b1", ">i4", "|S12", "<U5". Errors (kBadInput) say
/// why a type is unsupported (float16, complex, object, datetime, void); no file name.
Result<NpyDtype> parse_npy_descr(std::string_view descr);

/// Parses the header at the start of `file`. Errors (kBadInput) start with `path`: bad magic,
/// unknown version, truncated header, malformed dict, structured or unsupported dtypes.
/// Does not check the shape or data size.
Result<NpyHeader> parse_npy_header(std::string_view file, const std::string& path);

}  // namespace merlin::samples
