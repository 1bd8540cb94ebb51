#include "merlin/core/study/step_text.h"

namespace merlin {

std::string merlin_step_text(std::string_view text) {
  // Python's splitlines(): a final newline ends the last line instead of starting another.
  std::string_view body = text;
  if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  if (body.find('\n') == std::string_view::npos) {
    constexpr std::string_view kBlank = " \t";
    auto first = body.find_first_not_of(kBlank);
    if (first == std::string_view::npos) return {};
    return std::string(body.substr(first, body.find_last_not_of(kBlank) - first + 1));
  }
  while (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  return std::string(body) + "\n";
}

}  // namespace merlin
