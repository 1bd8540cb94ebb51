#include "merlin/core/samples/text_table.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "merlin/core/samples/mapped_file.h"

namespace merlin::samples {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// One cell as it sits in the file: `text` excludes the quotes of a quoted cell, whose ""
// pairs still need unescaping.
struct RawCell {
  std::string_view text;
  bool quoted = false;
};

// Calls `on_cell(RawCell) -> bool (continue?)` for each cell of a trimmed, non-empty line.
// Returns an error message (without location) if the line is malformed.
template <typename OnCell>
std::optional<std::string> for_each_csv_cell(std::string_view line, OnCell&& on_cell) {
  std::size_t pos = 0;
  while (true) {
    while (pos < line.size() && is_space(line[pos])) ++pos;
    RawCell cell;
    if (pos < line.size() && line[pos] == '"') {
      const std::size_t open = ++pos;
      while (true) {
        const std::size_t q = line.find('"', pos);
        if (q == std::string_view::npos) {
          return "unterminated quote (a quoted cell cannot span lines)";
        }
        if (q + 1 < line.size() && line[q + 1] == '"') {
          pos = q + 2;
          continue;
        }
        cell = {line.substr(open, q - open), true};
        pos = q + 1;
        break;
      }
      while (pos < line.size() && is_space(line[pos])) ++pos;
      if (pos < line.size() && line[pos] != ',') {
        return "unexpected text after a closing quote (quote the whole cell, and write \"\" "
               "for a literal quote)";
      }
    } else {
      const std::size_t comma = line.find(',', pos);
      const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
      cell = {trim(line.substr(pos, end - pos)), false};
      pos = end;
    }
    if (!on_cell(cell)) return std::nullopt;
    if (pos >= line.size()) return std::nullopt;
    ++pos;  // the ','
  }
}

template <typename OnCell>
void for_each_tab_cell(std::string_view line, OnCell&& on_cell) {
  std::size_t pos = 0;
  while (true) {
    while (pos < line.size() && is_space(line[pos])) ++pos;
    if (pos >= line.size()) return;
    std::size_t end = pos;
    while (end < line.size() && !is_space(line[end])) ++end;
    if (!on_cell(RawCell{line.substr(pos, end - pos), false})) return;
    pos = end;
  }
}

std::string unquote(const RawCell& cell) {
  if (!cell.quoted) return std::string(cell.text);
  std::string out;
  out.reserve(cell.text.size());
  for (std::size_t i = 0; i < cell.text.size(); ++i) {
    out.push_back(cell.text[i]);
    if (cell.text[i] == '"') ++i;  // "" -> "
  }
  return out;
}

// A UTF-8 byte-order mark, which some spreadsheet exports put first: it is not part of the
// first cell.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

std::size_t data_start(std::string_view all) {
  return all.substr(0, kUtf8Bom.size()) == kUtf8Bom ? kUtf8Bom.size() : 0;
}

// One offset per kStride sample rows: a lookup scans at most kStride - 1 lines forward, and the
// index costs 8 / kStride bytes per row instead of 8 (memory flat in the number of samples).
constexpr std::size_t kStride = 64;

class TextTable final : public SampleTable {
 public:
  TextTable(MappedFile file, TextFormat format, std::vector<std::uint64_t> index, std::size_t rows,
            std::size_t cols)
      : file_(std::move(file)),
        format_(format),
        index_(std::move(index)),
        rows_(rows),
        cols_(cols) {}

  std::size_t rows() const override { return rows_; }
  std::size_t columns() const override { return cols_; }

  std::string value(std::size_t row, std::size_t col) const override {
    const std::string_view line = sample_line(row);
    std::string out;
    std::size_t i = 0;
    const auto pick = [&](const RawCell& cell) {
      if (i++ != col) return true;
      out = unquote(cell);
      return false;
    };
    split(line, pick);
    return out;
  }

  // The line is split once: reading a row cell by cell through `value` rescans it per cell,
  // which made a task of a 10^4-column study cost ~0.3 s.
  std::vector<std::string> row_values(std::size_t row) const override {
    std::vector<std::string> out;
    out.reserve(cols_);
    split(sample_line(row), [&](const RawCell& cell) {
      if (out.size() < cols_) out.push_back(unquote(cell));
      return true;
    });
    return out;
  }

  // One pass over the mapped file: a lookup through the sparse index would rescan up to
  // kStride - 1 lines per cell, which made checking 10^7 samples take seconds.
  void for_each_row(const RowVisitor& on_row) const override {
    const std::string_view all = file_.bytes();
    std::vector<std::string> values(cols_);
    std::size_t row = 0;
    for (std::size_t pos = data_start(all); pos < all.size() && row < rows_;) {
      const char* nl =
          static_cast<const char*>(std::memchr(all.data() + pos, '\n', all.size() - pos));
      const std::size_t end = nl ? static_cast<std::size_t>(nl - all.data()) : all.size();
      const std::string_view line = trim(all.substr(pos, end - pos));
      pos = end + 1;
      if (line.empty()) continue;
      std::size_t i = 0;
      split(line, [&](const RawCell& cell) {
        if (i < values.size()) values[i++] = unquote(cell);
        return true;
      });
      if (!on_row(row++, values)) return;
    }
  }

 private:
  // Calls `on_cell` for each cell of a line that was validated when the table was opened.
  template <typename OnCell>
  void split(std::string_view line, OnCell&& on_cell) const {
    if (format_ == TextFormat::kCsv) {
      (void)for_each_csv_cell(line, on_cell);
    } else {
      for_each_tab_cell(line, on_cell);
    }
  }

  // The trimmed text of sample `row`: from the indexed row before it, skip non-blank lines.
  std::string_view sample_line(std::size_t row) const {
    const std::string_view all = file_.bytes();
    std::size_t pos = index_[row / kStride];
    std::size_t skip = row % kStride;
    while (true) {
      const std::size_t nl = all.find('\n', pos);
      const std::size_t end = nl == std::string_view::npos ? all.size() : nl;
      const std::string_view line = trim(all.substr(pos, end - pos));
      if (!line.empty()) {
        if (skip == 0) return line;
        --skip;
      }
      pos = end + 1;
    }
  }

  MappedFile file_;
  TextFormat format_;
  std::vector<std::uint64_t> index_;  // byte offset of sample rows 0, kStride, 2 kStride, ...
  std::size_t rows_;
  std::size_t cols_;
};

}  // namespace

Result<std::unique_ptr<SampleTable>> open_text_table(const std::string& path, TextFormat format) {
  auto file = MappedFile::open(path);
  if (!file) return file.error();
  return read_text_table(std::move(file.value()), format);
}

Result<std::unique_ptr<SampleTable>> read_text_table(MappedFile file, TextFormat format) {
  const std::string path = file.path();
  const std::string_view all = file.bytes();

  std::vector<std::uint64_t> index;
  std::size_t rows = 0;
  std::size_t expected = 0;
  std::size_t line_no = 0;
  for (std::size_t pos = data_start(all); pos < all.size();) {
    ++line_no;
    const char* nl =
        static_cast<const char*>(std::memchr(all.data() + pos, '\n', all.size() - pos));
    const std::size_t end = nl ? static_cast<std::size_t>(nl - all.data()) : all.size();
    const std::string_view line = trim(all.substr(pos, end - pos));
    if (!line.empty()) {
      std::size_t count = 0;
      const auto counter = [&](const RawCell&) {
        ++count;
        return true;
      };
      if (format == TextFormat::kCsv) {
        if (auto err = for_each_csv_cell(line, counter)) {
          return Error::bad_input(path + ":" + std::to_string(line_no) + ": " + *err);
        }
      } else {
        for_each_tab_cell(line, counter);
      }
      if (rows == 0) {
        expected = count;
      } else if (count != expected) {
        return Error::bad_input(path + ":" + std::to_string(line_no) + ": row has " +
                                std::to_string(count) + " columns, expected " +
                                std::to_string(expected));
      }
      if (rows % kStride == 0) index.push_back(pos);
      ++rows;
    }
    pos = end + 1;
  }
  if (rows == 0) {
    return Error::bad_input(path + ": no samples (the file is empty or has only blank lines)");
  }
  index.shrink_to_fit();
  return std::unique_ptr<SampleTable>(std::make_unique<TextTable>(
      std::move(file), format, std::move(index), rows, expected));
}

}  // namespace merlin::samples
