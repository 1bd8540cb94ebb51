#pragma once
/// Maps between byte offsets and 1-based line:col in a spec's text, to point at a `$(TOKEN)`
/// inside a (possibly multi-line) YAML scalar.
#include <cstddef>
#include <string_view>
#include <vector>

#include "merlin/core/spec/source_location.h"

namespace merlin::spec {

class SourceText {
 public:
  /// Keeps a view: `text` must outlive this object.
  explicit SourceText(std::string_view text);

  /// The offset of a known location; npos when unknown or out of range.
  std::size_t offset_of(SourceLocation where) const;
  SourceLocation location_of(std::size_t offset) const;

  /// Where the `skip`+1-th copy of `needle` at or after `from` starts. YAML scalars hold token
  /// text verbatim (a token has no spaces or escapes), so searching the raw text from the
  /// scalar's start finds it, in `|` blocks and quotes alike. Returns `from` when not found.
  SourceLocation find_after(SourceLocation from, std::string_view needle, std::size_t skip) const;

 private:
  std::string_view text_;
  std::vector<std::size_t> line_starts_;
};

}  // namespace merlin::spec
