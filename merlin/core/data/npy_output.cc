// The .npy reader of per-sample outputs, on merlin/core/samples' header parser.
#include <algorithm>
#include <bit>
#include <optional>
#include <cstring>

#include "merlin/core/data/output_reader.h"
#include "merlin/core/samples/npy_header.h"

namespace merlin::data {
namespace {

using samples::NpyKind;

// The stored type of an item type; nullopt for one we do not read.
std::optional<DType> dtype_of(const samples::NpyDtype& t) {
  auto by_size = [&](DType d1, DType d2, DType d4, DType d8) -> std::optional<DType> {
    switch (t.item_size) {
      case 1: return d1;
      case 2: return d2;
      case 4: return d4;
      case 8: return d8;
    }
    return std::nullopt;
  };
  switch (t.kind) {
    case NpyKind::kBool:
      return DType::kBool;
    case NpyKind::kFloat:
      if (t.item_size == 8) return DType::kFloat64;
      if (t.item_size == 4) return DType::kFloat32;
      return std::nullopt;
    case NpyKind::kInt:
      return by_size(DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64);
    case NpyKind::kUInt:
      return by_size(DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64);
    default:
      return std::nullopt;
  }
}

}  // namespace

Result<void> parse_npy_output(const std::string& stem, std::string_view text, SampleFields& out) {
  auto h = samples::parse_npy_header(text, stem + ".npy");
  if (!h) return h.error();
  const auto& t = h->dtype;
  if (t.kind == NpyKind::kBytes || t.kind == NpyKind::kUnicode)
    return Error::bad_input("dtype " + t.descr + " is not numeric");
  Field f;
  f.name = stem;
  f.shape = h->shape;
  const std::uint64_t n = f.size();
  if (h->data_offset > text.size() || (text.size() - h->data_offset) / t.item_size < n)
    return Error::bad_input("truncated: shape " + shape_text(f.shape) + " of " + t.descr +
                            " needs " + std::to_string(n * t.item_size) + " bytes of data");
  const auto type = dtype_of(t);
  if (!type) return Error::bad_input("dtype " + t.descr + " is not read by merlin collect");
  f.type = *type;
  const std::size_t size = t.item_size;
  const char* data = text.data() + h->data_offset;
  const bool swap = size > 1 && t.big_endian != (std::endian::native == std::endian::big);
  // Fortran order: element k of the file is the one whose first index varies fastest.
  const bool transpose = h->fortran_order && f.shape.size() > 1;
  f.bytes.resize(n * size);
  if (!swap && !transpose) {  // the common case: the data as it is
    if (n) std::memcpy(f.bytes.data(), data, n * size);
  } else {
    std::vector<std::uint64_t> idx(f.shape.size(), 0);
    for (std::uint64_t k = 0; k < n; ++k) {
      std::uint64_t dest = k;
      if (transpose) {
        dest = 0;
        for (std::size_t d = 0; d < f.shape.size(); ++d) dest = dest * f.shape[d] + idx[d];
        for (std::size_t d = 0; d < f.shape.size() && ++idx[d] == f.shape[d]; ++d) idx[d] = 0;
      }
      unsigned char* to = f.bytes.data() + dest * size;
      std::memcpy(to, data + k * size, size);
      if (swap) std::reverse(to, to + size);
    }
  }
  if (f.type == DType::kBool)  // numpy's bools are 0 or 1; any other byte is true
    for (auto& b : f.bytes) b = b ? 1 : 0;
  out.push_back(std::move(f));
  return ok();
}

}  // namespace merlin::data
