#include "merlin/core/spec/did_you_mean.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace merlin::spec {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (prefix.size() > text.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (lower(text[i]) != lower(prefix[i])) return false;
  return true;
}

}  // namespace

int edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      int cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> did_you_mean(std::string_view word,
                                        const std::vector<std::string>& candidates) {
  // Long words are not worth a quadratic table; nothing sensible is that long.
  if (word.empty() || word.size() > 200) return std::nullopt;
  const int max_edits = word.size() <= 3 ? 1 : 2;
  std::optional<std::string> best;
  int best_score = std::numeric_limits<int>::max();
  for (const auto& c : candidates) {
    if (c == word || c.size() > 200) continue;
    int score = edit_distance(word, c);
    if (score > max_edits) {
      std::string_view shorter = c.size() < word.size() ? std::string_view(c) : word;
      std::string_view longer = c.size() < word.size() ? word : std::string_view(c);
      if (shorter.size() < 3 || !starts_with_ci(longer, shorter)) continue;
      score = max_edits + 1;  // a prefix match ranks after every close spelling
    }
    if (score < best_score) {
      best_score = score;
      best = c;
    }
  }
  return best;
}

std::string suggestion_suffix(std::string_view word, const std::vector<std::string>& candidates,
                              std::string_view prefix, std::string_view suffix) {
  auto s = did_you_mean(word, candidates);
  if (!s) return "";
  return " (did you mean '" + std::string(prefix) + *s + std::string(suffix) + "'?)";
}

}  // namespace merlin::spec
