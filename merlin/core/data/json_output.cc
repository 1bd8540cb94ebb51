// The JSON reader of per-sample outputs: nlohmann::json stays in this file.
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

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

// Reads a number or a rectangular nested array of numbers into `f`; `depth` is the array
// nesting being read. Errors say where ("key[2][0]").
Result<void> read_numbers(const Json& j, Field& f, std::size_t depth, const std::string& where) {
  if (j.is_array()) {
    if (depth == f.shape.size()) {
      if (!f.values.empty() && depth > 0)  // a number where others had an array
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
      if (auto r = read_numbers(j[i], f, depth + 1, where + "[" + std::to_string(i) + "]"); !r)
        return r;
    return ok();
  }
  if (depth != f.shape.size())
    return Error::bad_input(where + ": a number where its siblings hold arrays (ragged)");
  if (j.is_number()) {
    f.values.push_back(j.get<double>());
  } else if (j.is_boolean()) {
    f.values.push_back(j.get<bool>() ? 1.0 : 0.0);
  } else if (j.is_null()) {
    f.values.push_back(std::numeric_limits<double>::quiet_NaN());
  } else {
    return Error::bad_input(where + ": " + std::string(j.type_name()) + " is not a number");
  }
  return ok();
}

Result<void> read_value(const Json& j, const std::string& name, SampleFields& out) {
  if (j.is_object()) {
    if (j.empty()) return Error::bad_input(name + ": an empty object holds no field");
    for (const auto& [key, value] : j.items())
      if (auto r = read_value(value, name + "/" + key, out); !r) return r;
    return ok();
  }
  Field f;
  f.name = name;
  if (auto r = read_numbers(j, f, 0, name); !r) return r;
  if (f.values.size() != f.size())  // e.g. [[1, 2], []]
    return Error::bad_input(name + ": a ragged array");
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
  if (j.is_discarded()) return Error::bad_input("not valid JSON");
  return read_value(j, stem, out);
}

namespace {

// What Infinity and -Infinity become (see with_json_numbers): strings no JSON text holds
// unescaped, read back by metric_number.
constexpr std::string_view kPlusInf = "\x01merlin:+inf", kMinusInf = "\x01merlin:-inf";

// Python's json.dump writes NaN, Infinity and -Infinity, which JSON has no words for: outside
// strings NaN becomes null (a missing result) and the infinities the strings above (a JSON
// number too large for a double is refused by the parser).
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
      out += "null";
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

// A metric's value: a number, NaN for null, an infinity for what with_json_numbers made of
// one; nullopt for anything else.
std::optional<double> metric_number(const Json& v) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& text = v.get_ref<const std::string&>();
    if (text == kPlusInf) return std::numeric_limits<double>::infinity();
    if (text == kMinusInf) return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
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
