#pragma once
/// A string as a JSON string literal, for the small JSON files merlin writes by hand.
#include <string>
#include <string_view>

namespace merlin {

/// `s` in double quotes, with `"` and `\` escaped and control characters as \u00XX; other
/// bytes (UTF-8 included) as they are.
inline std::string json_quoted(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace merlin
