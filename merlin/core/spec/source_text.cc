#include "merlin/core/spec/source_text.h"

#include <algorithm>
#include <string>

namespace merlin::spec {

SourceText::SourceText(std::string_view text) : text_(text) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts_.push_back(i + 1);
}

std::size_t SourceText::offset_of(SourceLocation where) const {
  if (!where.known() || static_cast<std::size_t>(where.line) > line_starts_.size()) {
    return std::string_view::npos;
  }
  std::size_t offset = line_starts_[where.line - 1] + static_cast<std::size_t>(where.column - 1);
  return offset <= text_.size() ? offset : std::string_view::npos;
}

SourceLocation SourceText::location_of(std::size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());  // 1-based
  return {static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1)};
}

SourceLocation SourceText::find_after(SourceLocation from, std::string_view needle,
                                      std::size_t skip) const {
  std::size_t pos = offset_of(from);
  if (pos == std::string_view::npos || needle.empty()) return from;
  for (std::size_t i = 0;; ++i) {
    pos = text_.find(needle, pos);
    if (pos == std::string_view::npos) return from;
    if (i == skip) return location_of(pos);
    pos += needle.size();
  }
}

}  // namespace merlin::spec
