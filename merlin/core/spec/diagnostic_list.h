#pragma once
/// Collects the Diagnostics of one spec while it is read and checked (internal to merlin/core/spec).
#include <string>
#include <vector>

#include "merlin/core/spec/source_location.h"
#include "merlin/core/spec/spec_loader.h"

namespace merlin::spec {

/// An append-only list of problems found in one file. Not thread-safe; one per load.
class DiagnosticList {
 public:
  explicit DiagnosticList(std::string file) : file_(std::move(file)) {}

  void error(SourceLocation where, std::string message);
  void warning(SourceLocation where, std::string message);
  bool has_errors() const;
  const std::string& file() const { return file_; }

  /// Every diagnostic, sorted by location (file-level ones first), exact duplicates removed.
  std::vector<Diagnostic> sorted() const;

 private:
  std::string file_;
  std::vector<Diagnostic> items_;
};

/// Each diagnostic's `str()`, one per line, no trailing newline.
std::string join_diagnostics(const std::vector<Diagnostic>& diagnostics);

}  // namespace merlin::spec
