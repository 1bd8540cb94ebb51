#pragma once
/// A plain, yaml-cpp-free copy of a parsed YAML document, with source locations, aliases expanded
/// and `<<` merge keys applied. The spec reader works on this tree only.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/spec/diagnostic_list.h"
#include "merlin/core/spec/source_location.h"

namespace merlin::spec {

struct YamlEntry;

struct YamlNode {
  enum class Kind { kNull, kScalar, kSequence, kMap };
  Kind kind = Kind::kNull;
  std::string scalar;  ///< kScalar: the text as written (quotes removed), e.g. "0.50"
  /// kScalar written without quotes or a tag, so YAML's implicit typing applies (`.5` is a
  /// number, `"0.5"` a string): see python_scalar.h.
  bool plain = false;
  SourceLocation where;
  std::vector<YamlNode> items;     ///< kSequence
  std::vector<YamlEntry> entries;  ///< kMap, in document order (merged keys first, as PyYAML)

  bool is_null() const { return kind == Kind::kNull; }
  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_sequence() const { return kind == Kind::kSequence; }
  bool is_map() const { return kind == Kind::kMap; }
  /// The entry with this key in a map, or nullptr.
  const YamlEntry* find(std::string_view key) const;
};

struct YamlEntry {
  std::string key;
  SourceLocation key_where;
  YamlNode value;
};

/// "a map", "a list", "a string" or "nothing": for "must be X, got Y" messages.
std::string describe_kind(const YamlNode& node);

struct YamlLimits {
  /// Nodes in the copy, aliases expanded (map keys are not counted). Bounds the memory of a
  /// large spec: 10^5 plain steps take about 400,000.
  std::size_t max_nodes = 1000000;
  /// Nodes added by expanding aliases (each use of `*a` copies the anchored node and all
  /// below it): what a "billion laughs" bomb inflates; written specs use a few hundred.
  std::size_t max_alias_nodes = 200000;
  int max_depth = 200;  ///< nesting, also what stops a self-referencing alias
};

/// Parses `text` (the first document). Syntax errors, alias bombs, over-deep nesting and
/// malformed merge keys are reported to `diags`; returns nullopt when the document cannot be
/// used at all. A limit's message names the limit and what was counted: the nodes as written
/// and the aliases, so a large spec is not mistaken for a bomb. Never throws.
std::optional<YamlNode> parse_yaml_tree(std::string_view text, const YamlLimits& limits,
                                        DiagnosticList& diags);

}  // namespace merlin::spec
