#include "merlin/core/report/csv_writer.h"

namespace merlin::report {
namespace {

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string to_csv(const Table& t, CsvHeader header) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    out += (c ? "," : "") +
           csv_cell(header == CsvHeader::kKeys ? key_of(t.columns[c]) : t.columns[c].header);
  out += '\n';
  for (const auto& row : t.rows) {
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      out += (c ? "," : "") + csv_cell(cell_text(cell_at(row, c), t.columns[c]));
    out += '\n';
  }
  return out;
}

}  // namespace merlin::report
