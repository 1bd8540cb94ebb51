#include "merlin/core/samples/npy_header.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <optional>

namespace merlin::samples {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// A cursor over the header's dict literal: just enough Python literal syntax for what
// numpy writes (and what older writers wrote, e.g. Python 2 longs "3L").
class DictParser {
 public:
  explicit DictParser(std::string_view text) : text_(text) {}

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  char peek() {
    skip_space();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }

  std::optional<std::string> string() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return std::nullopt;
    const char quote = text_[pos_++];
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return std::nullopt;  // numpy never writes escapes here
      out.push_back(text_[pos_++]);
    }
    if (pos_ >= text_.size()) return std::nullopt;
    ++pos_;
    return out;
  }

  std::optional<bool> boolean() {
    skip_space();
    for (auto [word, value] : {std::pair{std::string_view("True"), true}, {"False", false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    return std::nullopt;
  }

  std::optional<std::uint64_t> integer() {
    skip_space();
    std::uint64_t v = 0;
    const char* first = text_.data() + pos_;
    const auto res = std::from_chars(first, text_.data() + text_.size(), v);
    if (res.ec != std::errc() || res.ptr == first) return std::nullopt;
    pos_ += static_cast<std::size_t>(res.ptr - first);
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;
    return v;
  }

  // "()" "(3,)" "(3, 2)" "(3, 2,)"
  std::optional<std::vector<std::uint64_t>> tuple() {
    if (!eat('(')) return std::nullopt;
    std::vector<std::uint64_t> out;
    while (!eat(')')) {
      auto v = integer();
      if (!v) return std::nullopt;
      out.push_back(*v);
      if (!eat(',')) {
        if (!eat(')')) return std::nullopt;
        break;
      }
    }
    return out;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

std::uint32_t read_le(std::string_view bytes, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return v;
}

}  // namespace

Result<NpyDtype> parse_npy_descr(std::string_view descr) {
  NpyDtype dt;
  dt.descr = std::string(descr);
  std::string_view s = descr;
  char order = '=';
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
    order = s[0];
    s.remove_prefix(1);
  }
  dt.big_endian = order == '>' || (order == '=' && std::endian::native == std::endian::big);
  if (s.empty()) return Error::bad_input("empty dtype");

  const char kind = s[0];
  if (kind == 'O') {
    return Error::bad_input(
        "object arrays (dtype 'O') are not supported: they hold pickled Python objects; "
        "save plain numbers or fixed-width strings instead");
  }
  if (kind == 'M' || kind == 'm') {
    return Error::bad_input("dtype '" + dt.descr +
                            "' (datetime/timedelta) is not supported; save the values as "
                            "numbers or strings");
  }
  std::size_t size = 0;
  std::string_view digits = s.substr(1);
  if (!digits.empty()) {
    const auto res = std::from_chars(digits.data(), digits.data() + digits.size(), size);
    if (res.ec != std::errc() || res.ptr != digits.data() + digits.size()) {
      return Error::bad_input("unrecognised dtype '" + dt.descr + "'");
    }
  }
  const auto unsupported = [&](const std::string& what) {
    return Error::bad_input("dtype '" + dt.descr + "' (" + what +
                            ") is not supported; use f4/f8, i1..i8, u1..u8, b1, S<n> or U<n>");
  };
  switch (kind) {
    case 'f':
      if (size == 2) return unsupported("float16");
      if (size != 4 && size != 8) return unsupported("float of " + std::to_string(size) + " bytes");
      dt.kind = NpyKind::kFloat;
      break;
    case 'i':
    case 'u':
      if (size != 1 && size != 2 && size != 4 && size != 8) {
        return unsupported("integer of " + std::to_string(size) + " bytes");
      }
      dt.kind = kind == 'i' ? NpyKind::kInt : NpyKind::kUInt;
      break;
    case 'b':
    case '?':
      if (kind == 'b' && size != 1)
        return unsupported("bool of " + std::to_string(size) + " bytes");
      size = 1;
      dt.kind = NpyKind::kBool;
      break;
    case 'S':
    case 'a':
      if (size == 0) return unsupported("zero-width string");
      dt.kind = NpyKind::kBytes;
      break;
    case 'U':
      if (size == 0) return unsupported("zero-width string");
      if (size > (SIZE_MAX / 4)) return unsupported("string too wide");
      dt.kind = NpyKind::kUnicode;
      size *= 4;
      break;
    case 'c':
      return unsupported("complex");
    case 'V':
      return unsupported("void/raw bytes");
    default:
      return Error::bad_input("unrecognised dtype '" + dt.descr + "'");
  }
  dt.item_size = size;
  return dt;
}

Result<NpyHeader> parse_npy_header(std::string_view file, const std::string& path) {
  const auto fail = [&](const std::string& m) { return Error::bad_input(path + ": " + m); };
  if (file.size() < kMagic.size() || file.substr(0, kMagic.size()) != kMagic) {
    return fail("not a .npy file (it does not start with the magic bytes \\x93NUMPY)");
  }
  if (file.size() < 10) return fail("truncated .npy header");
  const int major = static_cast<unsigned char>(file[6]);
  const int minor = static_cast<unsigned char>(file[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return fail("unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 (utf-8 header) in 4.
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (file.size() < 8 + len_bytes) return fail("truncated .npy header");
  const std::size_t header_len = read_le(file.substr(8), len_bytes);
  const std::size_t start = 8 + len_bytes;
  if (file.size() - start < header_len) {
    return fail("truncated .npy header: it declares " + std::to_string(header_len) +
                " bytes, the file holds " + std::to_string(file.size() - start));
  }

  NpyHeader h;
  h.data_offset = start + header_len;
  DictParser p(file.substr(start, header_len));
  const auto malformed = [&](const std::string& what) {
    return fail("malformed .npy header: " + what);
  };
  if (!p.eat('{')) return malformed("expected '{'");
  bool have_descr = false, have_order = false, have_shape = false;
  while (!p.eat('}')) {
    auto key = p.string();
    if (!key) return malformed("expected a quoted key");
    if (!p.eat(':')) return malformed("expected ':' after '" + *key + "'");
    if (*key == "descr") {
      if (p.peek() == '[') {
        return fail(
            "structured dtypes (records with named fields) are not supported; save a "
            "plain 1-D or 2-D array of one type");
      }
      auto d = p.string();
      if (!d) return malformed("'descr' is not a string");
      auto dt = parse_npy_descr(*d);
      if (!dt) return fail(dt.error().message);
      h.dtype = std::move(dt.value());
      have_descr = true;
    } else if (*key == "fortran_order") {
      auto b = p.boolean();
      if (!b) return malformed("'fortran_order' is not True or False");
      h.fortran_order = *b;
      have_order = true;
    } else if (*key == "shape") {
      auto t = p.tuple();
      if (!t) return malformed("'shape' is not a tuple of integers");
      h.shape = std::move(*t);
      have_shape = true;
    } else {
      return malformed("unexpected key '" + *key + "'");
    }
    if (!p.eat(',')) {
      if (!p.eat('}')) return malformed("expected ',' or '}'");
      break;
    }
  }
  if (!p.at_end()) return malformed("unexpected text after '}'");
  if (!have_descr || !have_order || !have_shape) {
    return malformed("missing key(s):" + std::string(have_descr ? "" : " 'descr'") +
                     (have_order ? "" : " 'fortran_order'") + (have_shape ? "" : " 'shape'"));
  }
  return h;
}

}  // namespace merlin::samples
