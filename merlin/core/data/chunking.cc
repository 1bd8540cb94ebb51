#include "merlin/core/data/chunking.h"

#include <algorithm>

namespace merlin::data {
namespace {

std::uint64_t field_row_bytes(const FieldLayout& f) {
  const std::uint64_t element = f.type == DType::kString ? 16 : dtype_size(f.type);
  return f.size() * (element + (needs_mask(f.type) ? 1 : 0));
}

}  // namespace

std::uint64_t chunk_rows_for(std::uint64_t row_bytes) {
  return std::clamp<std::uint64_t>((1u << 20) / std::max<std::uint64_t>(row_bytes, 1), 1, 4096);
}

std::uint64_t row_bytes_of(const DatasetLayout& layout) {
  std::uint64_t n = 0;
  for (const auto& f : layout.fields) n += field_row_bytes(f);
  return std::max<std::uint64_t>(n, 1);
}

std::uint64_t widest_row_bytes_of(const DatasetLayout& layout) {
  std::uint64_t n = 1;
  for (const auto& f : layout.fields)
    n = std::max(n, f.size() * (f.type == DType::kString ? 16 : dtype_size(f.type)));
  return n;
}

std::uint64_t batch_rows_for(std::uint64_t asked, const DatasetLayout& layout) {
  std::uint64_t rows = std::max<std::uint64_t>(1, asked);
  rows = std::min(rows, std::max<std::uint64_t>(1, kBatchBytes / row_bytes_of(layout)));
  const std::uint64_t chunk = chunk_rows_for(widest_row_bytes_of(layout));
  if (rows >= chunk) rows -= rows % chunk;
  return rows;
}

std::uint64_t queue_items_for(std::uint64_t asked, const DatasetLayout& layout) {
  const std::uint64_t by_bytes = kBatchBytes / row_bytes_of(layout);
  return std::max<std::uint64_t>(16, std::min(asked, by_bytes));
}

}  // namespace merlin::data
