#include "merlin/core/spec/python_scalar.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>
#include <vector>

#include "merlin/core/util/value_format.h"

namespace merlin::spec {
namespace {

// YAML 1.1's implicit types (yaml.org/type/{bool,int,float}.html) as PyYAML resolves them.
bool is_yaml11_bool(const std::string& s, bool& value) {
  static const char* const kTrue[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static const char* const kFalse[] = {"no",    "No",    "NO",  "false", "False",
                                       "FALSE", "off",   "Off", "OFF"};
  for (const char* t : kTrue) {
    if (s == t) {
      value = true;
      return true;
    }
  }
  for (const char* f : kFalse) {
    if (s == f) {
      value = false;
      return true;
    }
  }
  return false;
}

const std::regex& int_pattern() {
  static const std::regex re(
      "[-+]?0b[01_]+"
      "|[-+]?0[0-7_]+"
      "|[-+]?(0|[1-9][0-9_]*)"
      "|[-+]?0x[0-9a-fA-F_]+"
      "|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+",
      std::regex::optimize);
  return re;
}

const std::regex& float_pattern() {
  static const std::regex re(
      "[-+]?[0-9][0-9_]*\\.[0-9_]*([eE][-+][0-9]+)?"
      "|\\.[0-9][0-9_]*([eE][-+][0-9]+)?"
      "|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*"
      "|[-+]?\\.(inf|Inf|INF)"
      "|\\.(nan|NaN|NAN)",
      std::regex::optimize);
  return re;
}

// A natural number of any size (Python's ints have no bound), in base 10^9 limbs.
class BigNatural {
 public:
  void mul_add(std::uint32_t mul, std::uint32_t add) {
    std::uint64_t carry = add;
    for (auto& limb : limbs_) {
      const std::uint64_t v = std::uint64_t{limb} * mul + carry;
      limb = static_cast<std::uint32_t>(v % kBase);
      carry = v / kBase;
    }
    while (carry > 0) {
      limbs_.push_back(static_cast<std::uint32_t>(carry % kBase));
      carry /= kBase;
    }
  }
  bool is_zero() const {
    return std::all_of(limbs_.begin(), limbs_.end(), [](std::uint32_t l) { return l == 0; });
  }
  std::string str() const {
    std::size_t top = limbs_.size();
    while (top > 0 && limbs_[top - 1] == 0) --top;
    if (top == 0) return "0";
    std::string out = std::to_string(limbs_[top - 1]);
    for (std::size_t i = top - 1; i-- > 0;) {
      std::string part = std::to_string(limbs_[i]);
      out += std::string(9 - part.size(), '0') + part;
    }
    return out;
  }

 private:
  static constexpr std::uint64_t kBase = 1000000000;
  std::vector<std::uint32_t> limbs_;
};

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// Adds `digits` in `base` to `n` (n = n * base^len + digits); false on an empty or bad digit.
bool append_digits(BigNatural& n, std::string_view digits, int base) {
  if (digits.empty()) return false;
  for (char c : digits) {
    const int d = digit_value(c);
    if (d >= base) return false;
    n.mul_add(static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(d));
  }
  return true;
}

// str(int(...)) of a YAML 1.1 int, as PyYAML constructs it: '_' dropped, 0b/0x/0 prefixes,
// base-60 "1:30". Empty when PyYAML itself would fail (e.g. "0b_").
std::string int_text(std::string v) {
  v.erase(std::remove(v.begin(), v.end(), '_'), v.end());
  const bool negative = !v.empty() && v[0] == '-';
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.erase(0, 1);
  BigNatural n;
  bool ok = true;
  if (v.rfind("0b", 0) == 0) {
    ok = append_digits(n, std::string_view(v).substr(2), 2);
  } else if (v.rfind("0x", 0) == 0) {
    ok = append_digits(n, std::string_view(v).substr(2), 16);
  } else if (v.size() > 1 && v[0] == '0') {
    ok = append_digits(n, v, 8);
  } else if (v.find(':') != std::string::npos) {
    std::size_t start = 0;
    bool first = true;
    while (ok) {
      const std::size_t colon = v.find(':', start);
      const std::string_view part =
          std::string_view(v).substr(start, colon == std::string::npos ? colon : colon - start);
      if (first) {
        ok = append_digits(n, part, 10);
      } else {
        std::uint32_t sixtieths = 0;
        for (char c : part) sixtieths = sixtieths * 10 + static_cast<std::uint32_t>(c - '0');
        n.mul_add(60, sixtieths);
      }
      first = false;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  } else {
    ok = append_digits(n, v, 10);
  }
  if (!ok) return "";
  return (negative && !n.is_zero() ? "-" : "") + n.str();
}

// float() of a decimal text, as Python: an exponent too large gives inf, too small 0.0.
bool parse_double(const std::string& s, double& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (end != s.data() + s.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    const auto e = s.find('e');
    const bool tiny = e != std::string::npos && e + 1 < s.size() && s[e + 1] == '-';
    out = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    return true;
  }
  return ec == std::errc();
}

// str(float(...)) of a YAML 1.1 float, as PyYAML constructs it. Empty when PyYAML would fail.
std::string float_text(std::string v) {
  v.erase(std::remove(v.begin(), v.end(), '_'), v.end());
  std::transform(v.begin(), v.end(), v.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const double sign = !v.empty() && v[0] == '-' ? -1.0 : 1.0;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.erase(0, 1);
  double value = 0.0;
  if (v == ".inf") {
    value = std::numeric_limits<double>::infinity();
  } else if (v == ".nan") {
    return "nan";
  } else if (v.find(':') != std::string::npos) {
    std::vector<double> parts;
    std::size_t start = 0;
    for (;;) {
      const std::size_t colon = v.find(':', start);
      double part = 0;
      if (!parse_double(v.substr(start, colon == std::string::npos ? colon : colon - start), part))
        return "";
      parts.push_back(part);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    double base = 1;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {  // Python adds from the right
      value += *it * base;
      base *= 60;
    }
  } else if (!parse_double(v, value)) {
    return "";
  }
  return samples::format_float64(sign * value);
}

}  // namespace

std::string python_str_of_plain(const std::string& text) {
  if (text.empty()) return text;
  bool b = false;
  if (is_yaml11_bool(text, b)) return samples::format_bool(b);
  const char c = text[0];
  const bool numeric_start = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
  if (!numeric_start) return text;
  if (std::regex_match(text, float_pattern())) {
    std::string f = float_text(text);
    return f.empty() ? text : f;
  }
  if (std::regex_match(text, int_pattern())) {
    std::string i = int_text(text);
    return i.empty() ? text : i;
  }
  return text;
}

}  // namespace merlin::spec
