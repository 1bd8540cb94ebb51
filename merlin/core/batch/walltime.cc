#include "merlin/core/batch/walltime.h"

#include <string>
#include <vector>

namespace merlin::batch {
namespace {

bool digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool leading_part(std::string_view s) { return s.size() <= 9 && digits(s); }

bool minutes_or_seconds(std::string_view s) {
  return s.size() == 2 && digits(s) && (s[0] - '0') * 10 + (s[1] - '0') < 60;
}

}  // namespace

std::optional<long> walltime_seconds(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    auto colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3) return std::nullopt;
  long total = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i == 0 ? !leading_part(parts[i]) : !minutes_or_seconds(parts[i])) return std::nullopt;
    total = total * 60 + std::stol(std::string(parts[i]));
  }
  return total;
}

}  // namespace merlin::batch
