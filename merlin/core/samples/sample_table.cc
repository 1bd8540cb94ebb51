#include "merlin/core/samples/sample_table.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "merlin/core/samples/npy_table.h"
#include "merlin/core/samples/text_table.h"

namespace merlin::samples {

Result<std::unique_ptr<SampleTable>> open_sample_table(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext != ".npy" && ext != ".csv" && ext != ".tab") {
    return Error::bad_input(
        "sample file '" + path + "' has " +
        (ext.empty() ? std::string("no extension") : "unsupported extension '" + ext + "'") +
        "; supported: .npy, .csv, .tab");
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error::bad_input("sample file '" + path + "' does not exist");
  }
  if (ext == ".npy") return open_npy_table(path);
  return open_text_table(path, ext == ".csv" ? TextFormat::kCsv : TextFormat::kTab);
}

bool is_shell_safe(std::string_view value) {
  // A whitelist, not a blacklist: anything the shell could read as syntax (quotes, $, `,
  // ;, &, |, <, >, (, ), *, ?, [, ], {, }, ~, !, #, \, whitespace, newline) or that is not
  // ASCII is refused. Space is refused too: it would split one value into several words.
  return std::all_of(value.begin(), value.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    switch (c) {
      case '_':
      case '.':
      case ',':
      case '+':
      case '-':
      case '=':
      case ':':
      case '/':
      case '@':
      case '%':
        return true;
      default:
        return false;
    }
  });
}

std::vector<std::string> SampleTable::row_values(std::size_t row) const {
  std::vector<std::string> out;
  out.reserve(columns());
  for (std::size_t c = 0; c < columns(); ++c) out.push_back(value(row, c));
  return out;
}

void SampleTable::for_each_row(const RowVisitor& on_row) const {
  const std::size_t n = rows(), cols = columns();
  std::vector<std::string> values(cols);
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = 0; c < cols; ++c) values[c] = value(r, c);
    if (!on_row(r, values)) return;
  }
}

std::optional<BadValue> find_bad_value(const SampleTable& table, const ValueRules& rules) {
  std::optional<BadValue> bad;
  table.for_each_row([&](std::size_t r, const std::vector<std::string>& values) {
    for (std::size_t c = 0; c < values.size(); ++c) {
      if (c < rules.max_bytes.size() && values[c].size() > rules.max_bytes[c]) {
        bad = BadValue{r, c, values[c], ValueProblem::kTooLong};
        return false;
      }
      if (values[c].find('\0') != std::string::npos) {
        bad = BadValue{r, c, values[c], ValueProblem::kNulByte};
        return false;
      }
      if (rules.shell_safe_only && !is_shell_safe(values[c])) {
        bad = BadValue{r, c, values[c], ValueProblem::kShellUnsafe};
        return false;
      }
    }
    return true;
  });
  return bad;
}

std::optional<UnsafeValue> find_unsafe_value(const SampleTable& table) {
  auto bad = find_bad_value(table, ValueRules{});
  if (!bad) return std::nullopt;
  return UnsafeValue{bad->row, bad->col, std::move(bad->value)};
}

}  // namespace merlin::samples
