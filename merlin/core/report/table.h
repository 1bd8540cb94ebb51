#pragma once
/// The typed record model every report is built as (status, detailed-status, queue-info,
/// query-workers; the web monitor's /api/status): a table is named columns and rows of typed
/// cells. Commands build one from their data; the writers (text_writer.h, csv_writer.h,
/// json_writer.h) turn it into aligned text, CSV or JSON, and never look at where it came from.
/// docs/json-output.md documents each command's table.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace merlin::report {

using StringList = std::vector<std::string>;

/// A cell's value. `std::monostate` is null (absent: a worker without a batch job): JSON
/// `null`, the column's `null_text` in text and CSV.
using Value = std::variant<std::monostate, std::int64_t, std::uint64_t, double, bool, std::string,
                           StringList>;

/// One cell: a typed value and, optionally, how text and CSV show it instead (a time since the
/// epoch shown as a date); JSON always writes the value.
struct Cell {
  Value value;
  std::optional<std::string> shown;

  Cell() = default;
  Cell(std::nullptr_t) {}  // NOLINT: implicit on purpose, as are the others (rows read as data)
  template <typename T>
  requires std::is_arithmetic_v<T> Cell(T v) {  // NOLINT
    if constexpr (std::is_same_v<T, bool>)
      value = v;
    else if constexpr (std::is_floating_point_v<T>)
      value = static_cast<double>(v);
    else if constexpr (std::is_signed_v<T>)
      value = static_cast<std::int64_t>(v);
    else
      value = static_cast<std::uint64_t>(v);
  }
  Cell(const char* s) : value(std::string(s)) {}  // NOLINT
  Cell(std::string s) : value(std::move(s)) {}    // NOLINT
  Cell(StringList l) : value(std::move(l)) {}     // NOLINT

  bool is_null() const { return std::holds_alternative<std::monostate>(value); }
  /// This cell, shown as `text` in text and CSV.
  Cell shown_as(std::string text) const {
    Cell c = *this;
    c.shown = std::move(text);
    return c;
  }
};

/// A string cell, or null when `s` is empty.
inline Cell text_or_null(const std::string& s) { return s.empty() ? Cell() : Cell(s); }

enum class Align { kAuto, kLeft, kRight };

/// A column: its header in text and CSV, its member name in JSON, and how text shows it.
struct Column {
  std::string header{};  ///< "RETURN CODE"
  /// The JSON member name; empty: the header in lower case, spaces as '_' ("return_code").
  std::string key{};
  /// kAuto: right-aligned when every non-null cell is a number (without `shown`), else left.
  Align align = Align::kAuto;
  std::size_t min_width = 0;  ///< text: at least this many characters wide
  int decimals = -1;          ///< doubles in text and CSV: this many decimals; -1: shortest
  std::string null_text{};    ///< a null in text and CSV
};

struct Table {
  std::vector<Column> columns;
  /// A row shorter than `columns` ends in nulls; cells past the columns are not written.
  std::vector<std::vector<Cell>> rows;
};

/// The column's JSON member name (see Column::key).
std::string key_of(const Column& column);
/// How text and CSV show the cell: `shown`, else the value (null and NaN/inf: `null_text`;
/// integers in decimal; doubles with `decimals`; booleans "true"/"false"; a list joined by ',').
std::string cell_text(const Cell& cell, const Column& column);
/// An integer or a finite double, without `shown`.
bool is_number_cell(const Cell& cell);
/// The cell of `row` in column `c`, or a null cell past the row's end.
const Cell& cell_at(const std::vector<Cell>& row, std::size_t c);

}  // namespace merlin::report
