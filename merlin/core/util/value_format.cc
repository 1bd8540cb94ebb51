#include "merlin/core/util/value_format.h"

#include <charconv>
#include <cmath>
#include <string_view>
#include <system_error>

namespace merlin::samples {
namespace {

// Lays out the shortest round-trip digits of a finite, non-zero value positionally:
// `sci` is std::to_chars' shortest scientific form, e.g. "-1.2345e+02".
std::string positional_from_scientific(std::string_view sci) {
  std::string out;
  if (!sci.empty() && sci.front() == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const std::size_t e_pos = sci.find('e');
  std::string_view mantissa = sci.substr(0, e_pos);
  int exponent = 0;
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);

  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  // value = 0.d1d2...dn * 10^(exponent + 1)
  const int point = exponent + 1;
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-point), '0');
    out += digits;
  } else if (static_cast<std::size_t>(point) >= digits.size()) {
    out += digits;
    out.append(static_cast<std::size_t>(point) - digits.size(), '0');
    out += ".0";
  } else {
    out.append(digits, 0, static_cast<std::size_t>(point));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(point));
  }
  return out;
}

template <typename T>
std::string format_floating(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";

  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));

  // numpy's cutoff compares the value (as long double) itself, not its printed exponent
  // (scalartypes.c.src, *type_str_either); for doubles both agree, for floats they differ
  // just below 1e-4.
  const long double mag = std::fabs(static_cast<long double>(v));
  if (mag >= 1.e-4L && mag < 1.e16L) return positional_from_scientific(sci);
  // to_chars' shortest scientific form already matches numpy/Python here: no trailing
  // ".0", sign always shown, at least two exponent digits ("1e-05", "1.5e+16", "1e+100").
  return std::string(sci);
}

}  // namespace

std::string format_float64(double v) { return format_floating(v); }
std::string format_float32(float v) { return format_floating(v); }

std::string format_int(std::int64_t v) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string format_uint(std::uint64_t v) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

}  // namespace merlin::samples
