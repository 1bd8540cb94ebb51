#pragma once
/// Where a value came from in a spec file, for error messages (`file:line:col`).
#include <string>

namespace merlin::spec {

/// 1-based line and column; 0 means "unknown" (e.g. a default value).
struct SourceLocation {
  int line = 0;
  int column = 0;
  bool known() const { return line > 0; }
};

}  // namespace merlin::spec
