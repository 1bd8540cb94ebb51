#pragma once
/// Readers of one sample's output files into typed fields (field_type.h), chosen by extension:
///  - `.json`: a value, a (nested, rectangular) array of values, or an object. An object's
///    keys become fields `<stem>/<key>` (nested objects: `<stem>/<key>/<subkey>`); a value or
///    array at the top is the field `<stem>`. A field's type comes from its values
///    (json_field_type: int64, float64, bool, string); null is a missing value; NaN, Infinity
///    and -Infinity (Python's json.dump) are floats. Strings mixed with numbers, ragged
///    arrays, empty objects and nesting deeper than 64 arrays and objects are malformed (the
///    depth is checked before anything is built, so any text is safe).
///  - `.npy`: the array is the field `<stem>`, of its dtype (bool, int, uint, float32/64; C
///    or Fortran order, read into C order, either byte order into native).
///  - `.csv`: a header line and one row: a field `<stem>/<column>` per column (a scalar; an
///    integer cell int64, another number float64, an empty or nan cell NaN).
/// `<stem>` is the file name without its directory and extension (`result.json` → `result`).
/// Thread-safe: readers share nothing.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/data/sample_fields.h"
#include "merlin/core/util/result.h"

namespace merlin::data {

enum class OutputKind { kJson, kNpy, kCsv };

/// The kind of `file` by its extension; kBadInput naming it for any other extension.
Result<OutputKind> output_kind(const std::string& file);

/// `result.json` → `result`.
std::string output_stem(const std::string& file);

/// Appends the fields of `text` (the contents of a file of `kind` with stem `stem`) to `out`.
/// Errors (kBadInput) say what is wrong, without the file name (the caller adds it).
Result<void> parse_output(OutputKind kind, const std::string& stem, std::string_view text,
                          SampleFields& out);

/// A tuned trial's result (docs/tuning.md): `key` of the last line of `text` (JSON Lines: one
/// object a line, `{"budget": 9, "value": 0.31}`) that is an object whose `key` is a number.
/// `NaN`, `Infinity` and `-Infinity` (what Python's json.dump writes) read as such; a line
/// that does not parse (a trial killed while writing it) is passed over. nullopt when no line
/// has one.
std::optional<double> last_metric(std::string_view text, const std::string& key);

/// One line of a trial's metric file: its `budget` and its `key` (NaN for null/NaN).
struct MetricPoint {
  double budget = 0;
  double value = 0;
};
/// Every line of `text` that is an object with a numeric `budget` and a numeric (or null,
/// NaN) `key`, in file order; other lines are passed over, as last_metric does.
std::vector<MetricPoint> metric_curve(std::string_view text, const std::string& key);

/// Parsers by kind (parse_output dispatches to them).
Result<void> parse_json_output(const std::string& stem, std::string_view text, SampleFields& out);
Result<void> parse_npy_output(const std::string& stem, std::string_view text, SampleFields& out);
Result<void> parse_csv_output(const std::string& stem, std::string_view text, SampleFields& out);

}  // namespace merlin::data
