// The .csv reader of per-sample outputs: a header line, then one row of numbers.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "merlin/core/data/output_reader.h"

namespace merlin::data {
namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '"'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '"'))
    s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> cells(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    auto comma = line.find(',', start);
    out.push_back(
        trim(line.substr(start, comma == std::string_view::npos ? comma : comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

// The non-empty lines of `text`.
std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    auto l = text.substr(start, nl - start);
    if (l.find_first_not_of(" \t\r") != std::string_view::npos) out.push_back(l);
    start = nl + 1;
  }
  return out;
}

}  // namespace

Result<void> parse_csv_output(const std::string& stem, std::string_view text, SampleFields& out) {
  auto ls = lines(text);
  if (ls.size() != 2)
    return Error::bad_input("a header line and one row expected, found " +
                            std::to_string(ls.size()) + " non-empty lines");
  auto names = cells(ls[0]);
  auto values = cells(ls[1]);
  if (names.size() != values.size())
    return Error::bad_input(std::to_string(names.size()) + " column names but " +
                            std::to_string(values.size()) + " values");
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty())
      return Error::bad_input("column " + std::to_string(i + 1) + " has no name");
    // An integer cell is an int64, any other number a float64; empty or nan is NaN.
    const std::string& cell = values[i];
    Field f;
    f.name = stem + "/" + names[i];
    if (cell.empty() || cell == "nan" || cell == "NaN") {
      out.push_back(Field::of_doubles(f.name, {}, {std::numeric_limits<double>::quiet_NaN()}));
      continue;
    }
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(cell.c_str(), &end, 10);
    if (end != cell.c_str() && *end == '\0' && errno == 0) {
      f.type = DType::kInt64;
      const std::int64_t v = n;
      const auto* p = reinterpret_cast<const unsigned char*>(&v);
      f.bytes.assign(p, p + sizeof v);
      out.push_back(std::move(f));
      continue;
    }
    errno = 0;
    const double v = std::strtod(cell.c_str(), &end);
    if (end == cell.c_str() || *end != '\0')
      return Error::bad_input("column '" + names[i] + "': '" + cell + "' is not a number");
    out.push_back(Field::of_doubles(f.name, {}, {v}));
  }
  return ok();
}

}  // namespace merlin::data
