#include <algorithm>
#include <set>
#include <tuple>

#include "merlin/core/spec/diagnostic_list.h"
#include "merlin/core/spec/spec_loader.h"
#include "merlin/core/util/visible_text.h"

namespace merlin::spec {

std::string Diagnostic::str() const {
  std::string out = file;
  if (where.known()) {
    out += ':' + std::to_string(where.line) + ':' + std::to_string(where.column);
  }
  out += ": ";
  if (is_warning) out += "warning: ";
  out += visible_text(message);  // quoted spec text may hold a NUL ("\0" in YAML) or a BOM
  return out;
}

void DiagnosticList::error(SourceLocation where, std::string message) {
  items_.push_back(Diagnostic{file_, where, std::move(message), false});
}

void DiagnosticList::warning(SourceLocation where, std::string message) {
  items_.push_back(Diagnostic{file_, where, std::move(message), true});
}

bool DiagnosticList::has_errors() const {
  return std::any_of(items_.begin(), items_.end(),
                     [](const Diagnostic& d) { return !d.is_warning; });
}

std::vector<Diagnostic> DiagnosticList::sorted() const {
  std::vector<Diagnostic> out = items_;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.where.line, a.where.column) < std::tie(b.where.line, b.where.column);
  });
  // The same anchored text merged into two places yields the same problem twice.
  std::set<std::tuple<int, int, std::string, bool>> seen;
  std::vector<Diagnostic> unique;
  for (auto& d : out) {
    if (seen.emplace(d.where.line, d.where.column, d.message, d.is_warning).second) {
      unique.push_back(std::move(d));
    }
  }
  out = std::move(unique);
  return out;
}

std::string join_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) {
    if (!out.empty()) out += '\n';
    out += d.str();
  }
  return out;
}

}  // namespace merlin::spec
