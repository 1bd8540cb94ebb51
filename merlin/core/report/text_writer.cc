#include "merlin/core/report/text_writer.h"

#include <algorithm>

namespace merlin::report {
namespace {

// Characters of UTF-8 text: bytes that do not continue a sequence. (A wide character still
// counts one; terminals differ there anyway.)
std::size_t width_of(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

bool right_aligned(const Table& t, std::size_t c) {
  const Column& col = t.columns[c];
  if (col.align != Align::kAuto) return col.align == Align::kRight;
  bool any_number = false;
  for (const auto& row : t.rows) {
    const Cell& cell = cell_at(row, c);
    if (cell.is_null() && !cell.shown) continue;
    if (!is_number_cell(cell)) return false;
    any_number = true;
  }
  return any_number;
}

}  // namespace

std::string to_text(const Table& t) {
  const std::size_t n = t.columns.size();
  std::vector<std::vector<std::string>> lines;  // the header, then the rows, as text
  lines.reserve(t.rows.size() + 1);
  lines.emplace_back();
  for (const auto& col : t.columns) lines.back().push_back(col.header);
  for (const auto& row : t.rows) {
    lines.emplace_back();
    for (std::size_t c = 0; c < n; ++c)
      lines.back().push_back(cell_text(cell_at(row, c), t.columns[c]));
  }
  std::vector<std::size_t> width(n);
  std::vector<bool> right(n);
  for (std::size_t c = 0; c < n; ++c) {
    width[c] = t.columns[c].min_width;
    for (const auto& l : lines) width[c] = std::max(width[c], width_of(l[c]));
    right[c] = right_aligned(t, c);
  }
  std::string out;
  for (const auto& l : lines) {
    std::string line;
    for (std::size_t c = 0; c < n; ++c) {
      const std::string pad(width[c] - width_of(l[c]), ' ');
      if (c) line += "  ";
      line += right[c] ? pad + l[c] : l[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace merlin::report
