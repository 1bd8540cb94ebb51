#pragma once
/// Replacing `$(NAME)` references in template text.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "merlin/core/spec/token.h"

namespace merlin {

/// Given a token (and the whole text, for `$(LAUNCHER)[..]`), its value, or nullopt to leave it.
using TokenLookup = std::function<std::optional<std::string>(const spec::TokenRef&)>;

/// `text` with every token the lookup knows replaced; unknown tokens are kept verbatim.
std::string substitute(std::string_view text, const TokenLookup& lookup);

/// Convenience: lookup in a name → value map.
std::string substitute(std::string_view text, const std::map<std::string, std::string>& values);

}  // namespace merlin
