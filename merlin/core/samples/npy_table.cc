#include "merlin/core/samples/npy_table.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>

#include "merlin/core/samples/mapped_file.h"
#include "merlin/core/samples/npy_header.h"
#include "merlin/core/util/value_format.h"

namespace merlin::samples {
namespace {

template <typename U>
U load(const unsigned char* p, bool big_endian) {
  U v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (sizeof(U) > 1) {
    if (big_endian != (std::endian::native == std::endian::big)) {
      if constexpr (sizeof(U) == 2) v = static_cast<U>(__builtin_bswap16(v));
      if constexpr (sizeof(U) == 4) v = __builtin_bswap32(v);
      if constexpr (sizeof(U) == 8) v = __builtin_bswap64(v);
    }
  }
  return v;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;  // not a scalar value
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    s += std::to_string(shape[i]);
    s += (shape.size() == 1 || i + 1 < shape.size()) ? "," : "";
    if (i + 1 < shape.size()) s += " ";
  }
  return s + ")";
}

class NpyTable final : public SampleTable {
 public:
  NpyTable(MappedFile file, NpyHeader header, std::size_t rows, std::size_t cols)
      : file_(std::move(file)),
        dtype_(std::move(header.dtype)),
        fortran_order_(header.fortran_order),
        rows_(rows),
        cols_(cols),
        data_(reinterpret_cast<const unsigned char*>(file_.bytes().data()) + header.data_offset) {}

  std::size_t rows() const override { return rows_; }
  std::size_t columns() const override { return cols_; }

  std::string value(std::size_t row, std::size_t col) const override {
    const std::size_t index = fortran_order_ ? col * rows_ + row : row * cols_ + col;
    const unsigned char* p = data_ + index * dtype_.item_size;
    const bool be = dtype_.big_endian;
    switch (dtype_.kind) {
      case NpyKind::kBool:
        return format_bool(*p != 0);
      case NpyKind::kFloat:
        if (dtype_.item_size == 4)
          return format_float32(std::bit_cast<float>(load<std::uint32_t>(p, be)));
        return format_float64(std::bit_cast<double>(load<std::uint64_t>(p, be)));
      case NpyKind::kInt:
        switch (dtype_.item_size) {
          case 1:
            return format_int(static_cast<std::int8_t>(*p));
          case 2:
            return format_int(static_cast<std::int16_t>(load<std::uint16_t>(p, be)));
          case 4:
            return format_int(static_cast<std::int32_t>(load<std::uint32_t>(p, be)));
          default:
            return format_int(static_cast<std::int64_t>(load<std::uint64_t>(p, be)));
        }
      case NpyKind::kUInt:
        switch (dtype_.item_size) {
          case 1:
            return format_uint(*p);
          case 2:
            return format_uint(load<std::uint16_t>(p, be));
          case 4:
            return format_uint(load<std::uint32_t>(p, be));
          default:
            return format_uint(load<std::uint64_t>(p, be));
        }
      case NpyKind::kBytes: {
        // numpy pads with NULs; a value cannot carry a NUL into shell text, so stop at the first.
        const void* nul = std::memchr(p, 0, dtype_.item_size);
        const std::size_t n =
            nul ? static_cast<std::size_t>(static_cast<const unsigned char*>(nul) - p)
                : dtype_.item_size;
        return std::string(reinterpret_cast<const char*>(p), n);
      }
      case NpyKind::kUnicode: {
        std::string out;
        for (std::size_t i = 0; i < dtype_.item_size; i += 4) {
          const std::uint32_t cp = load<std::uint32_t>(p + i, be);
          if (cp == 0) break;
          append_utf8(out, cp);
        }
        return out;
      }
    }
    return {};
  }

 private:
  MappedFile file_;
  NpyDtype dtype_;
  bool fortran_order_;
  std::size_t rows_, cols_;
  const unsigned char* data_;  // into file_'s mapping, which moves with it unchanged
};

}  // namespace

Result<std::unique_ptr<SampleTable>> open_npy_table(const std::string& path) {
  auto file = MappedFile::open(path);
  if (!file) return file.error();
  return read_npy_table(std::move(file.value()));
}

Result<std::unique_ptr<SampleTable>> read_npy_table(MappedFile file) {
  const std::string path = file.path();
  auto header = parse_npy_header(file.bytes(), path);
  if (!header) return header.error();
  const auto fail = [&](const std::string& m) { return Error::bad_input(path + ": " + m); };

  const auto& shape = header->shape;
  const std::string shape_str = shape_text(shape);
  if (shape.empty()) {
    return fail("holds a single scalar (shape ()); samples need a 1-D or 2-D array");
  }
  if (shape.size() > 2) {
    return fail("has " + std::to_string(shape.size()) + " dimensions (shape " + shape_str +
                "); samples need a 1-D array (one column) or a 2-D array (rows x columns)");
  }
  const std::uint64_t rows = shape[0];
  const std::uint64_t cols = shape.size() == 2 ? shape[1] : 1;
  if (rows == 0) return fail("no samples (shape " + shape_str + ")");
  if (cols == 0) return fail("samples have no columns (shape " + shape_str + ")");

  std::uint64_t items = 0, bytes = 0;
  if (__builtin_mul_overflow(rows, cols, &items) ||
      __builtin_mul_overflow(items, static_cast<std::uint64_t>(header->dtype.item_size), &bytes)) {
    return fail("shape " + shape_str + " is too large");
  }
  const std::uint64_t available = file.bytes().size() - header->data_offset;
  if (available < bytes) {
    return fail("truncated: shape " + shape_str + " of '" + header->dtype.descr + "' needs " +
                std::to_string(bytes) + " bytes of data, the file holds " +
                std::to_string(available));
  }
  return std::unique_ptr<SampleTable>(
      std::make_unique<NpyTable>(std::move(file), std::move(header.value()),
                                 static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)));
}

}  // namespace merlin::samples
