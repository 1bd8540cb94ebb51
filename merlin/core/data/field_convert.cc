// A sample's field into a dataset's column of the type an earlier sample decided: the checks
// (conversion_problem) and the conversion (append_converted), on plain values.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "merlin/core/data/sample_fields.h"

namespace merlin::data {
namespace {

template <typename T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void store(T v, std::vector<unsigned char>& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

// Element i of a numeric field, exactly: long double holds every int64 and uint64 (x86-64's
// 64-bit mantissa) and every double.
long double element(const Field& f, std::size_t i) {
  const unsigned char* p = f.bytes.data() + i * dtype_size(f.type);
  switch (f.type) {
    case DType::kFloat64: return load<double>(p);
    case DType::kFloat32: return load<float>(p);
    case DType::kInt64: return load<std::int64_t>(p);
    case DType::kInt32: return load<std::int32_t>(p);
    case DType::kInt16: return load<std::int16_t>(p);
    case DType::kInt8: return load<std::int8_t>(p);
    case DType::kUInt64: return load<std::uint64_t>(p);
    case DType::kUInt32: return load<std::uint32_t>(p);
    case DType::kUInt16: return load<std::uint16_t>(p);
    case DType::kUInt8:
    case DType::kBool: return *p;
    case DType::kString: break;
  }
  return std::numeric_limits<long double>::quiet_NaN();
}

bool missing_at(const Field& f, std::size_t i, long double v) {
  return (!f.missing.empty() && f.missing[i]) || std::isnan(v);
}

struct Range {
  long double lo, hi;
};

Range range_of(DType t) {
  switch (t) {
    case DType::kInt64: return {-9223372036854775808.0L, 9223372036854775807.0L};
    case DType::kInt32: return {-2147483648.0L, 2147483647.0L};
    case DType::kInt16: return {-32768.0L, 32767.0L};
    case DType::kInt8: return {-128.0L, 127.0L};
    case DType::kUInt64: return {0, 18446744073709551615.0L};
    case DType::kUInt32: return {0, 4294967295.0L};
    case DType::kUInt16: return {0, 65535.0L};
    case DType::kUInt8: return {0, 255.0L};
    case DType::kBool: return {0, 1};
    default: return {-HUGE_VALL, HUGE_VALL};
  }
}

std::string number_text(long double v) {
  if (v == std::trunc(v) && std::fabs(v) < 1e19L) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0Lf", v);
    return buf;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.17Lg", v);
  return buf;
}

void store_as(DType to, long double v, std::vector<unsigned char>& out) {
  switch (to) {
    case DType::kFloat64: return store<double>(static_cast<double>(v), out);
    case DType::kFloat32: return store<float>(static_cast<float>(v), out);
    case DType::kInt64: return store<std::int64_t>(static_cast<std::int64_t>(v), out);
    case DType::kInt32: return store<std::int32_t>(static_cast<std::int32_t>(v), out);
    case DType::kInt16: return store<std::int16_t>(static_cast<std::int16_t>(v), out);
    case DType::kInt8: return store<std::int8_t>(static_cast<std::int8_t>(v), out);
    case DType::kUInt64: return store<std::uint64_t>(static_cast<std::uint64_t>(v), out);
    case DType::kUInt32: return store<std::uint32_t>(static_cast<std::uint32_t>(v), out);
    case DType::kUInt16: return store<std::uint16_t>(static_cast<std::uint16_t>(v), out);
    case DType::kUInt8:
    case DType::kBool: return store<std::uint8_t>(static_cast<std::uint8_t>(v), out);
    case DType::kString: return;
  }
}

void append_zero(DType to, std::uint64_t n, FieldColumn& col) {
  col.bytes.insert(col.bytes.end(), n * dtype_size(to), 0);
}

}  // namespace

double Field::number(std::size_t i) const {
  if (type == DType::kString || (!missing.empty() && missing[i]))
    return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(element(*this, i));
}

std::vector<double> Field::numbers() const {
  std::vector<double> out(size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = number(i);
  return out;
}

Field Field::of_doubles(std::string name, std::vector<std::uint64_t> shape,
                        const std::vector<double>& values) {
  Field f;
  f.name = std::move(name);
  f.shape = std::move(shape);
  f.type = DType::kFloat64;
  f.bytes.resize(values.size() * sizeof(double));
  if (!values.empty()) std::memcpy(f.bytes.data(), values.data(), f.bytes.size());
  return f;
}

std::string conversion_problem(const Field& f, DType to) {
  if (f.type == to) return "";
  const std::string where = "field " + f.name + " ";
  const std::string theirs = std::string(" (the dataset's field is ") + dtype_name(to) +
                             ", the type of its first sample's value)";
  if (to == DType::kString || f.type == DType::kString)
    return where + "holds " + (f.type == DType::kString ? "strings" : "numbers") + theirs;
  if (is_float(to)) return "";
  const Range r = range_of(to);
  const std::size_t n = f.size();
  for (std::size_t i = 0; i < n; ++i) {
    const long double v = element(f, i);
    if (missing_at(f, i, v)) continue;
    if (!std::isfinite(v)) return where + "holds " + (v > 0 ? "Infinity" : "-Infinity") + theirs;
    if (v != std::trunc(v)) return where + "holds " + number_text(v) + ", not an integer" + theirs;
    if (v < r.lo || v > r.hi)
      return where + "holds " + number_text(v) + ", outside " + dtype_name(to) + "'s range" +
             theirs;
  }
  return "";
}

void append_converted(const Field& f, DType to, FieldColumn& col) {
  const std::size_t n = f.size();
  if (to == DType::kString) {
    col.strings.insert(col.strings.end(), f.strings.begin(), f.strings.end());
    if (f.missing.empty())
      col.missing.insert(col.missing.end(), n, 0);
    else
      col.missing.insert(col.missing.end(), f.missing.begin(), f.missing.end());
    return;
  }
  const bool mask = needs_mask(to);
  if (f.type == to) {
    // The common case (every sample of one type): the bytes as they are.
    const std::size_t start = col.bytes.size(), size = dtype_size(to);
    col.bytes.insert(col.bytes.end(), f.bytes.begin(), f.bytes.end());
    if (!mask) {  // a float field with a null: NaN there
      for (std::size_t i = 0; i < f.missing.size(); ++i)
        if (f.missing[i]) {
          std::vector<unsigned char> nan;
          store_as(to, std::numeric_limits<long double>::quiet_NaN(), nan);
          std::memcpy(col.bytes.data() + start + i * size, nan.data(), size);
        }
      return;
    }
    if (f.missing.empty())
      col.missing.insert(col.missing.end(), n, 0);
    else
      col.missing.insert(col.missing.end(), f.missing.begin(), f.missing.end());
    return;
  }
  col.bytes.reserve(col.bytes.size() + n * dtype_size(to));
  for (std::size_t i = 0; i < n; ++i) {
    const long double v = element(f, i);
    const bool gone = missing_at(f, i, v);
    if (mask) {
      col.missing.push_back(gone ? 1 : 0);
      store_as(to, gone ? 0.0L : v, col.bytes);
    } else {
      store_as(to, gone ? std::numeric_limits<long double>::quiet_NaN() : v, col.bytes);
    }
  }
}

void append_missing(DType to, std::uint64_t n, FieldColumn& col) {
  if (to == DType::kString) {
    col.strings.insert(col.strings.end(), n, std::string());
    col.missing.insert(col.missing.end(), n, 1);
    return;
  }
  if (needs_mask(to)) {
    append_zero(to, n, col);
    col.missing.insert(col.missing.end(), n, 1);
    return;
  }
  for (std::uint64_t i = 0; i < n; ++i)
    store_as(to, std::numeric_limits<long double>::quiet_NaN(), col.bytes);
}

}  // namespace merlin::data
