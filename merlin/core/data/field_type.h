#pragma once
/// The element types of `merlin collect`'s fields (docs/collect.md, "Types") and the pure
/// decisions on them: which type a JSON field's values make, and whether (and how) a sample's
/// values go into a dataset whose type an earlier sample decided. No I/O.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::data {

/// A field's element type, as stored. kBool is stored as uint8 (0/1) and named "bool".
enum class DType : std::uint8_t {
  kFloat64,
  kFloat32,
  kInt64,
  kInt32,
  kInt16,
  kInt8,
  kUInt64,
  kUInt32,
  kUInt16,
  kUInt8,
  kBool,
  kString,
};

/// Bytes per element (kBool: 1); 0 for kString (held as std::string).
std::size_t dtype_size(DType t);
/// "float64", "int32", "bool", "string", ...
const char* dtype_name(DType t);
/// The type named `name` (dtype_name's inverse).
std::optional<DType> dtype_named(const std::string& name);
bool is_float(DType t);
/// Whether a dataset of this type needs a mask of missing values beside it: every type but
/// the floats (which hold NaN).
inline bool needs_mask(DType t) { return !is_float(t); }

/// What kinds of JSON values one field holds (all its elements).
struct JsonKinds {
  bool floats = false;   ///< a number with a fraction or exponent, NaN, Infinity
  bool ints = false;     ///< an integer that fits int64
  bool big = false;      ///< an integer beyond int64 (stored as float64)
  bool bools = false;    ///< true, false
  bool strings = false;  ///< a string
  bool nulls = false;    ///< null: a missing value of the field's type
};

/// The type of a JSON field: float64 when any value is a float (or an integer beyond int64,
/// or every value is null), else int64 when any is an integer (booleans among them are 1/0),
/// else bool; string when the values are strings (and nulls). kBadInput for strings mixed
/// with numbers or booleans.
Result<DType> json_field_type(const JsonKinds& kinds);

/// One field's values across rows, in the dataset's type: `bytes` (native byte order) or
/// `strings`, and `missing` (one flag per element, 1 = no value) when needs_mask(type).
struct FieldColumn {
  std::vector<unsigned char> bytes;
  std::vector<std::string> strings;
  std::vector<std::uint8_t> missing;
  void clear() {
    bytes.clear();
    strings.clear();
    missing.clear();
  }
  /// float64 columns (tests, readers): element i.
  double f64(std::size_t i) const;
  /// Appends float64 values (for float64 columns).
  void push_f64(std::initializer_list<double> v);
};

}  // namespace merlin::data
