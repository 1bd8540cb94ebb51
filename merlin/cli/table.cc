#include "merlin/cli/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace merlin::cli {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "12", "0", "0.25", "3.5": written as a JSON number (never "02" or "1.": JSON has no such).
bool is_number(const std::string& s) {
  if (s.empty() || s.size() >= 19) return false;
  std::string_view v = s;
  auto dot = v.find('.');
  std::string_view whole = v.substr(0, dot);
  if (!all_digits(whole) || (whole.size() > 1 && whole[0] == '0')) return false;
  return dot == std::string_view::npos || all_digits(v.substr(dot + 1));
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string format_table(const TableRow& header, const std::vector<TableRow>& rows,
                         StatusFormat format) {
  std::string out;
  if (format == StatusFormat::kJson) {
    out = "[";
    for (std::size_t r = 0; r < rows.size(); ++r) {
      out += r ? ",\n  {" : "\n  {";
      for (std::size_t c = 0; c < header.size() && c < rows[r].size(); ++c) {
        std::string key = header[c];
        std::transform(key.begin(), key.end(), key.begin(),
                       [](unsigned char ch) { return ch == ' ' ? '_' : std::tolower(ch); });
        out += (c ? ", " : "") + json_string(key) + ": " +
               (is_number(rows[r][c]) ? rows[r][c] : json_string(rows[r][c]));
      }
      out += "}";
    }
    return out + "\n]\n";
  }
  if (format == StatusFormat::kCsv) {
    auto line = [](const TableRow& row) {
      std::string l;
      for (std::size_t c = 0; c < row.size(); ++c) l += (c ? "," : "") + csv_cell(row[c]);
      return l + "\n";
    };
    out = line(header);
    for (const auto& r : rows) out += line(r);
    return out;
  }
  std::vector<std::size_t> width(header.size());
  std::vector<bool> numeric(header.size(), !rows.empty());  // numeric columns align right
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], r[c].size());
      numeric[c] = numeric[c] && is_number(r[c]);
    }
  auto line = [&](const TableRow& row) {
    std::string l;
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      l += (c ? "  " : "") + (numeric[c] ? fmt::format("{:>{}}", row[c], width[c])
                                         : fmt::format("{:<{}}", row[c], width[c]));
    while (!l.empty() && l.back() == ' ') l.pop_back();
    return l + "\n";
  };
  out = line(header);
  for (const auto& r : rows) out += line(r);
  return out;
}

Result<StatusFormat> parse_format(const std::string& name) {
  if (name == "table") return StatusFormat::kTable;
  if (name == "json") return StatusFormat::kJson;
  if (name == "csv") return StatusFormat::kCsv;
  return Error::bad_input("--format: table, json or csv, got '" + name + "'");
}

Result<StatusFormat> dump_format(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  if (ext == ".csv") return StatusFormat::kCsv;
  if (ext == ".json") return StatusFormat::kJson;
  return Error::bad_input("--dump " + path + ": the file must end in .csv or .json");
}

}  // namespace merlin::cli
