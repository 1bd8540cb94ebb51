#pragma once
/// "Did you mean ...?" hints for misspelt keys, step names and tokens.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace merlin::spec {

/// Optimal-string-alignment edit distance (a transposition counts as one edit), case-insensitive.
int edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word`, if one is near enough: at most 2 edits (1 for words of up to 3
/// characters), or one word is a prefix of the other (the shorter having at least 3 characters).
/// Ties go to the earlier candidate. An exact match is never suggested.
std::optional<std::string> did_you_mean(std::string_view word,
                                        const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" or "" when nothing is near; `prefix`/`suffix` wrap the suggestion, e.g.
/// "$(" and ")" for tokens.
std::string suggestion_suffix(std::string_view word, const std::vector<std::string>& candidates,
                              std::string_view prefix = "", std::string_view suffix = "");

}  // namespace merlin::spec
