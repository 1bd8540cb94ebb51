// The JSON reader of per-sample outputs: nlohmann::json stays in this file.
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <optional>

#include "merlin/core/data/output_reader.h"

namespace merlin::data {
namespace {

using Json = nlohmann::json;

// The deepest nesting of arrays and objects read: far beyond any real output, and what keeps
// the DOM and read_numbers' recursion shallow (30,000 nested brackets crashed the reader).
constexpr std::size_t kMaxDepth = 64;

// True when `text` nests arrays and objects deeper than kMaxDepth (brackets outside strings;
// a malformed text is left for the parser to refuse). One pass, no allocation.
bool too_deep(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// What NaN, Infinity and -Infinity become (see with_json_numbers): strings no JSON text holds
// unescaped, read back as numbers by json_number.
constexpr std::string_view kPlusInf = "\x01merlin:+inf", kMinusInf = "\x01merlin:-inf",
                           kNaN = "\x01merlin:nan";

// Python's json.dump writes NaN, Infinity and -Infinity, which JSON has no words for: outside
// strings they become the strings above (a JSON number too large for a double is refused by
// the parser).
std::string with_json_numbers(std::string_view line) {
  std::string out;
  bool in_string = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < line.size()) out += line[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (line.substr(i, 3) == "NaN") {
      out += Json(std::string(kNaN)).dump();
      i += 2;
    } else if (line.substr(i, 8) == "Infinity" || line.substr(i, 9) == "-Infinity") {
      const bool minus = c == '-';
      out += Json(std::string(minus ? kMinusInf : kPlusInf)).dump();  // "\u0001merlin:..."
      i += minus ? 8 : 7;
    } else {
      out += c;
    }
  }
  return out;
}

// NaN and the infinities as with_json_numbers wrote them; nullopt for any other value.
std::optional<double> special_number(const Json& v) {
  if (!v.is_string()) return std::nullopt;
  const auto& text = v.get_ref<const std::string&>();
  if (text == kPlusInf) return std::numeric_limits<double>::infinity();
  if (text == kMinusInf) return -std::numeric_limits<double>::infinity();
  if (text == kNaN) return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

// A value or a rectangular nested array of them: its shape, its leaves in C order, and the
// kinds of its leaves. `depth` is the array nesting being read. Errors say where ("key[2][0]").
struct Leaves {
  std::vector<std::uint64_t> shape;
  std::vector<const Json*> items;
  JsonKinds kinds;
};

Result<void> gather(const Json& j, Leaves& f, std::size_t depth, const std::string& where) {
  if (j.is_array()) {
    if (depth == f.shape.size()) {
      if (!f.items.empty() && depth > 0)  // a number where others had an array
        return Error::bad_input(where + ": an array where its siblings hold numbers (ragged)");
      f.shape.push_back(j.size());
    } else if (f.shape[depth] != j.size()) {
      return Error::bad_input(where + ": " + std::to_string(j.size()) +
                              " items where its "
                              "siblings have " +
                              std::to_string(f.shape[depth]) + " (ragged)");
    }
    if (j.empty()) return ok();
    for (std::size_t i = 0; i < j.size(); ++i)
      if (auto r = gather(j[i], f, depth + 1, where + "[" + std::to_string(i) + "]"); !r) return r;
    return ok();
  }
  if (depth != f.shape.size())
    return Error::bad_input(where + ": a value where its siblings hold arrays (ragged)");
  if (j.is_number_float() || special_number(j)) {
    f.kinds.floats = true;
  } else if (j.is_number_unsigned()) {
    (j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
         ? f.kinds.big
         : f.kinds.ints) = true;
  } else if (j.is_number_integer()) {
    f.kinds.ints = true;
  } else if (j.is_boolean()) {
    f.kinds.bools = true;
  } else if (j.is_null()) {
    f.kinds.nulls = true;
  } else if (j.is_string()) {
    f.kinds.strings = true;
  } else {
    return Error::bad_input(where + ": " + std::string(j.type_name()) + " is not a value");
  }
  f.items.push_back(&j);
  return ok();
}

template <typename T>
void put(T v, std::vector<unsigned char>& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

// The leaves as a field of `type` (json_field_type of their kinds).
void fill(const Leaves& l, DType type, Field& f) {
  const bool mask = l.kinds.nulls && needs_mask(type);
  if (mask) f.missing.assign(l.items.size(), 0);
  if (type == DType::kString) f.strings.reserve(l.items.size());
  else f.bytes.reserve(l.items.size() * dtype_size(type));
  for (std::size_t i = 0; i < l.items.size(); ++i) {
    const Json& j = *l.items[i];
    if (j.is_null()) {
      if (mask) f.missing[i] = 1;
      if (type == DType::kString) f.strings.emplace_back();
      else if (type == DType::kFloat64) put(std::numeric_limits<double>::quiet_NaN(), f.bytes);
      else if (type == DType::kInt64) put(std::int64_t{0}, f.bytes);
      else put(std::uint8_t{0}, f.bytes);
      continue;
    }
    switch (type) {
      case DType::kString:
        f.strings.push_back(j.get<std::string>());
        break;
      case DType::kFloat64:
        if (auto s = special_number(j)) put(*s, f.bytes);
        else if (j.is_boolean()) put(j.get<bool>() ? 1.0 : 0.0, f.bytes);
        else put(j.get<double>(), f.bytes);
        break;
      case DType::kInt64:
        put(j.is_boolean() ? std::int64_t{j.get<bool>()} : j.get<std::int64_t>(), f.bytes);
        break;
      default:  // kBool
        put(static_cast<std::uint8_t>(j.get<bool>()), f.bytes);
        break;
    }
  }
}

Result<void> read_value(const Json& j, const std::string& name, SampleFields& out) {
  if (j.is_object()) {
    if (j.empty()) return Error::bad_input(name + ": an empty object holds no field");
    for (const auto& [key, value] : j.items())
      if (auto r = read_value(value, name + "/" + key, out); !r) return r;
    return ok();
  }
  Leaves l;
  if (auto r = gather(j, l, 0, name); !r) return r;
  Field f;
  f.name = name;
  f.shape = std::move(l.shape);
  if (l.items.size() != f.size())  // e.g. [[1, 2], []]
    return Error::bad_input(name + ": a ragged array");
  auto type = json_field_type(l.kinds);
  if (!type) return Error::bad_input(name + ": " + type.error().message);
  f.type = *type;
  fill(l, f.type, f);
  out.push_back(std::move(f));
  return ok();
}

}  // namespace

Result<void> parse_json_output(const std::string& stem, std::string_view text, SampleFields& out) {
  if (too_deep(text))
    return Error::bad_input("nested more than " + std::to_string(kMaxDepth) +
                            " levels deep (arrays and objects); merlin collect reads at most " +
                            std::to_string(kMaxDepth));
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {  // NaN, Infinity, -Infinity: what Python's json.dump writes
    const std::string fixed = with_json_numbers(text);
    j = Json::parse(fixed, nullptr, /*allow_exceptions=*/false);
  }
  if (j.is_discarded()) return Error::bad_input("not valid JSON");
  return read_value(j, stem, out);
}

namespace {

// A metric's value: a number, NaN for null, NaN or an infinity for what with_json_numbers
// made of one; nullopt for anything else.
std::optional<double> metric_number(const Json& v) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (v.is_number()) return v.get<double>();
  return special_number(v);
}

// One line of a metric file as an object; discarded when it is not one.
Json metric_line(std::string_view line) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos || too_deep(line))
    return Json(Json::value_t::discarded);
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded()) j = Json::parse(with_json_numbers(line), nullptr, false);
  if (!j.is_discarded() && !j.is_object()) return Json(Json::value_t::discarded);
  return j;
}

}  // namespace

std::vector<MetricPoint> metric_curve(std::string_view text, const std::string& key) {
  std::vector<MetricPoint> out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    Json j = metric_line(line);
    if (j.is_discarded()) continue;
    auto b = j.find("budget");
    auto v = j.find(key);
    if (b == j.end() || !b->is_number() || v == j.end()) continue;
    if (auto x = metric_number(*v)) out.push_back({b->get<double>(), *x});
  }
  return out;
}

std::optional<double> last_metric(std::string_view text, const std::string& key) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t start = text.rfind('\n', end - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view line = text.substr(start, end - start);
    end = start == 0 ? 0 : start - 1;
    Json j = metric_line(line);
    if (j.is_discarded()) continue;
    auto it = j.find(key);
    if (it == j.end()) continue;
    if (auto x = metric_number(*it)) return x;
  }
  return std::nullopt;
}

}  // namespace merlin::data
