#pragma once
/// A study's table of samples (rows) by columns (named by `merlin.samples.column_labels`).
/// Readers never load the whole file into per-value objects: `.npy` is memory-mapped, text
/// files are memory-mapped with a row index.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::samples {

class SampleTable {
 public:
  virtual ~SampleTable() = default;
  virtual std::size_t rows() const = 0;
  virtual std::size_t columns() const = 0;
  /// The value as Merlin renders it into a command: plain text, e.g. "0.4775", "12", "Alice".
  /// Floats use the shortest text that round-trips (Python's repr). Thread-safe (read-only).
  /// Precondition: row < rows(), col < columns().
  virtual std::string value(std::size_t row, std::size_t col) const = 0;

  /// Every value of sample `row`, in column order, as `value` renders them: what a task needs.
  /// O(columns) time for every reader (a text row is split once, not once per cell). The
  /// default calls `value` per column; readers whose `value` is not O(1) override it.
  /// Thread-safe (read-only). Precondition: row < rows().
  virtual std::vector<std::string> row_values(std::size_t row) const;

  /// Calls `on_row(row, values)` for rows 0, 1, ... in one sequential pass, as `value` would
  /// render them; stops when it returns false. O(rows) time, O(columns) memory. The default
  /// goes through `value`; readers whose random access is not O(1) per cell override it.
  using RowVisitor = std::function<bool(std::size_t row, const std::vector<std::string>& values)>;
  virtual void for_each_row(const RowVisitor& on_row) const;
};

/// Opens `.npy` (1-D or 2-D, C or Fortran order; dtypes f4 f8 i1..i8 u1..u8 b1 and
/// fixed-width strings S/U), `.csv` (comma-separated) or `.tab` (whitespace-separated).
/// Text files have no header row: every non-empty line is a sample. A 1-D `.npy` is one column.
/// Errors (kBadInput) name the file and, for text files, the line: missing file, unknown
/// extension, unsupported dtype, truncated data, rows with differing column counts.
Result<std::unique_ptr<SampleTable>> open_sample_table(const std::string& path);

/// Characters that make a value unsafe to paste into shell text: anything but
/// [A-Za-z0-9 _ . , + - = : / @ %] (so numbers, names, paths and e-notation pass).
bool is_shell_safe(std::string_view value);

/// Linux's limit on one argument or environment string, its NUL included (MAX_ARG_STRLEN):
/// execve fails with E2BIG ("Argument list too long") for a longer one.
inline constexpr std::size_t kMaxArgStringBytes = 131072;

/// What every value of a sampled study must meet before any task is made.
struct ValueRules {
  bool shell_safe_only = true;  ///< refuse what is_shell_safe() rejects
  /// Per column, the longest value accepted, in bytes; columns past the end have no limit.
  std::vector<std::size_t> max_bytes;
};

enum class ValueProblem {
  kShellUnsafe,
  kTooLong,
  kNulByte,  ///< always refused: no argument or environment string can carry one
};

struct BadValue {
  std::size_t row = 0, col = 0;
  std::string value;
  ValueProblem problem = ValueProblem::kShellUnsafe;
};

/// The first value, in row order, that breaks `rules` or holds a NUL byte (a too-long value
/// is reported as such first, then a NUL, then shell safety). One pass: O(rows) time,
/// O(columns) memory.
std::optional<BadValue> find_bad_value(const SampleTable& table, const ValueRules& rules);

/// The first value that is not shell-safe, scanning every cell (O(rows) time, O(1) memory).
struct UnsafeValue {
  std::size_t row = 0, col = 0;
  std::string value;
};
std::optional<UnsafeValue> find_unsafe_value(const SampleTable& table);

}  // namespace merlin::samples
