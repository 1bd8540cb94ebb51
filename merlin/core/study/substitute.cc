#include "merlin/core/study/substitute.h"

namespace merlin {

std::string substitute(std::string_view text, const TokenLookup& lookup) {
  auto tokens = spec::find_tokens(text);
  if (tokens.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size() + 64);
  std::size_t at = 0;
  for (const auto& t : tokens) {
    auto value = lookup(t);
    if (!value) continue;
    out.append(text.substr(at, t.offset - at));
    out.append(*value);
    at = t.offset + t.length;
  }
  out.append(text.substr(at));
  return out;
}

std::string substitute(std::string_view text, const std::map<std::string, std::string>& values) {
  return substitute(text, [&](const spec::TokenRef& t) -> std::optional<std::string> {
    auto it = values.find(t.name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  });
}

}  // namespace merlin
