#include "merlin/core/report/table.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace merlin::report {

std::string key_of(const Column& column) {
  if (!column.key.empty()) return column.key;
  std::string key = column.header;
  for (char& ch : key)
    ch = ch == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return key;
}

std::string cell_text(const Cell& cell, const Column& column) {
  if (cell.shown) return *cell.shown;
  struct Show {
    const Column& column;
    std::string operator()(std::monostate) const { return column.null_text; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(std::uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const {
      if (!std::isfinite(v)) return column.null_text;
      return column.decimals >= 0 ? fmt::format("{:.{}f}", v, column.decimals)
                                  : fmt::format("{}", v);
    }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(const StringList& v) const {
      std::string out;
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + v[i];
      return out;
    }
  };
  return std::visit(Show{column}, cell.value);
}

bool is_number_cell(const Cell& cell) {
  if (cell.shown) return false;
  if (std::holds_alternative<std::int64_t>(cell.value) ||
      std::holds_alternative<std::uint64_t>(cell.value))
    return true;
  const double* d = std::get_if<double>(&cell.value);
  return d != nullptr && std::isfinite(*d);
}

const Cell& cell_at(const std::vector<Cell>& row, std::size_t c) {
  static const Cell kNull;
  return c < row.size() ? row[c] : kNull;
}

}  // namespace merlin::report
