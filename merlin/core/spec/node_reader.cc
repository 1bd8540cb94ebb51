#include "merlin/core/spec/node_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdlib>

#include "merlin/core/spec/did_you_mean.h"

namespace merlin::spec {
namespace {

std::string lowered(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void check_keys(const YamlNode& map, const std::vector<std::string>& allowed,
                const std::string& context, DiagnosticList& diags) {
  for (const auto& e : map.entries) {
    if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
    diags.error(e.key_where,
                "unknown key '" + e.key + "' in " + context + suggestion_suffix(e.key, allowed));
  }
}

bool expect_map(const YamlNode& node, const std::string& what, DiagnosticList& diags) {
  if (node.is_map()) return true;
  if (!node.is_null()) diags.error(node.where, what + " must be a map, got " + describe_kind(node));
  return false;
}

std::optional<std::string> read_scalar(const YamlNode& node, const std::string& what,
                                       DiagnosticList& diags) {
  if (node.is_scalar()) return node.scalar;
  if (!node.is_null()) {
    diags.error(node.where, what + " must be a single value, got " + describe_kind(node));
  }
  return std::nullopt;
}

std::optional<Text> read_text(const YamlNode& node, const std::string& what,
                              DiagnosticList& diags) {
  auto s = read_scalar(node, what, diags);
  if (!s) return std::nullopt;
  return Text{*s, node.where};
}

std::optional<bool> read_bool(const YamlNode& node, const std::string& what,
                              DiagnosticList& diags) {
  auto s = read_scalar(node, what, diags);
  if (!s) return std::nullopt;
  std::string v = lowered(*s);
  if (v == "true" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "no" || v == "off") return false;
  diags.error(node.where, what + " must be true or false, got '" + *s + "'");
  return std::nullopt;
}

std::optional<int> read_int(const YamlNode& node, const std::string& what, int min_value,
                            DiagnosticList& diags) {
  auto s = read_scalar(node, what, diags);
  if (!s) return std::nullopt;
  long long v = 0;
  const char* end = s->data() + s->size();
  auto [ptr, ec] = std::from_chars(s->data(), end, v);
  if (ec != std::errc() || ptr != end || v > INT_MAX) {
    diags.error(node.where, what + " must be a whole number, got '" + *s + "'");
    return std::nullopt;
  }
  if (v < min_value) {
    diags.error(node.where,
                what + " must be at least " + std::to_string(min_value) + ", got '" + *s + "'");
    return std::nullopt;
  }
  return static_cast<int>(v);
}

std::optional<double> read_non_negative(const YamlNode& node, const std::string& what,
                                        DiagnosticList& diags) {
  auto s = read_scalar(node, what, diags);
  if (!s) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s->c_str(), &end);
  if (s->empty() || end != s->c_str() + s->size() || !(v >= 0.0) || v > 1e12) {
    diags.error(node.where, what + " must be a number of seconds >= 0, got '" + *s + "'");
    return std::nullopt;
  }
  return v;
}

std::optional<std::vector<Text>> read_scalar_list(const YamlNode& node, const std::string& what,
                                                  DiagnosticList& diags) {
  if (node.is_null()) return std::vector<Text>{};
  if (!node.is_sequence()) {
    diags.error(node.where, what + " must be a list, got " + describe_kind(node));
    return std::nullopt;
  }
  std::vector<Text> out;
  bool ok = true;
  for (const auto& item : node.items) {
    if (!item.is_scalar()) {
      diags.error(item.where,
                  "items of " + what + " must be single values, got " + describe_kind(item));
      ok = false;
      continue;
    }
    out.push_back(Text{item.scalar, item.where});
  }
  if (!ok) return std::nullopt;
  return out;
}

std::vector<std::string> texts_to_strings(const std::vector<Text>& texts) {
  std::vector<std::string> out;
  out.reserve(texts.size());
  for (const auto& t : texts) out.push_back(t.value);
  return out;
}

}  // namespace merlin::spec
