// The .npy reader of per-sample outputs, on merlin/core/samples' header parser.
#include <bit>
#include <cstring>

#include "merlin/core/data/output_reader.h"
#include "merlin/core/samples/npy_header.h"

namespace merlin::data {
namespace {

using samples::NpyKind;

template <typename T>
T load(const char* p, bool swap) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, p, sizeof(T));
  if (swap)
    for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

// One item as a double; false for an item type we do not read.
bool item(const samples::NpyDtype& t, const char* p, double& out) {
  const bool swap = t.big_endian != (std::endian::native == std::endian::big);
  switch (t.kind) {
    case NpyKind::kBool:
      out = *p ? 1.0 : 0.0;
      return true;
    case NpyKind::kFloat:
      if (t.item_size == 8)
        out = load<double>(p, swap);
      else if (t.item_size == 4)
        out = load<float>(p, swap);
      else
        return false;
      return true;
    case NpyKind::kInt:
      switch (t.item_size) {
        case 1:
          out = static_cast<std::int8_t>(*p);
          return true;
        case 2:
          out = load<std::int16_t>(p, swap);
          return true;
        case 4:
          out = load<std::int32_t>(p, swap);
          return true;
        case 8:
          out = static_cast<double>(load<std::int64_t>(p, swap));
          return true;
      }
      return false;
    case NpyKind::kUInt:
      switch (t.item_size) {
        case 1:
          out = static_cast<std::uint8_t>(*p);
          return true;
        case 2:
          out = load<std::uint16_t>(p, swap);
          return true;
        case 4:
          out = load<std::uint32_t>(p, swap);
          return true;
        case 8:
          out = static_cast<double>(load<std::uint64_t>(p, swap));
          return true;
      }
      return false;
    default:
      return false;
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
  f.values.resize(n);
  const char* data = text.data() + h->data_offset;
  // Fortran order: element k of the file is the one whose first index varies fastest.
  const bool transpose = h->fortran_order && f.shape.size() > 1;
  std::vector<std::uint64_t> idx(f.shape.size(), 0);
  for (std::uint64_t k = 0; k < n; ++k) {
    std::uint64_t dest = k;
    if (transpose) {
      dest = 0;
      for (std::size_t d = 0; d < f.shape.size(); ++d) dest = dest * f.shape[d] + idx[d];
      for (std::size_t d = 0; d < f.shape.size() && ++idx[d] == f.shape[d]; ++d) idx[d] = 0;
    }
    if (!item(t, data + k * t.item_size, f.values[dest]))
      return Error::bad_input("dtype " + t.descr + " is not read by merlin collect");
  }
  out.push_back(std::move(f));
  return ok();
}

}  // namespace merlin::data
