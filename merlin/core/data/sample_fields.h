#pragma once
/// What one sample's output files hold: named fields, each an array of some element type
/// (field_type.h) and shape (a scalar has shape ()), values in C order. `merlin collect` reads
/// each sample's files into these and writes them as one row of each field's dataset.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/data/field_type.h"

namespace merlin::data {

struct Field {
  std::string name;                  ///< "result/energy": the file's stem, then keys or columns
  std::vector<std::uint64_t> shape;  ///< per sample; empty for a scalar
  DType type = DType::kFloat64;
  std::vector<unsigned char> bytes;   ///< size() elements of `type`, native byte order (numbers)
  std::vector<std::string> strings;   ///< size() strings (kString)
  std::vector<std::uint8_t> missing;  ///< empty, or size() flags: 1 where a value is missing

  /// product(shape): 1 for a scalar.
  std::uint64_t size() const {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  /// Elements held (bytes or strings), to compare with size().
  std::uint64_t held() const {
    return type == DType::kString ? strings.size() : bytes.size() / dtype_size(type);
  }
  /// Element i of a numeric field as a double (NaN where missing).
  double number(std::size_t i) const;
  /// Every element as a double (numeric fields).
  std::vector<double> numbers() const;
  /// A float64 field.
  static Field of_doubles(std::string name, std::vector<std::uint64_t> shape,
                          const std::vector<double>& values);
};

using SampleFields = std::vector<Field>;

/// "(3, 2)", "()" for a scalar: shapes in messages.
std::string shape_text(const std::vector<std::uint64_t>& shape);

/// Why `f`'s values cannot go into a dataset of type `to` ("holds 2.5, not an integer (the
/// dataset's field is int64)"); "" when they can: any number into a float type; integers
/// (and floats of integral value) in range into an integer type; 0 and 1 into bool; strings
/// into string only. Missing values (flags, NaN) go into any type.
std::string conversion_problem(const Field& f, DType to);
/// Appends `f`'s values as `to` (conversion_problem(f, to) must be ""), with their missing
/// flags when `to` needs a mask (NaN of a float counts as missing there).
void append_converted(const Field& f, DType to, FieldColumn& col);
/// Appends `n` missing values of `to`: NaN for floats; 0 or "" with the flag set otherwise.
void append_missing(DType to, std::uint64_t n, FieldColumn& col);

}  // namespace merlin::data
