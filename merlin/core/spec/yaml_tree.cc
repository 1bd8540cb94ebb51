#include "merlin/core/spec/yaml_tree.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <exception>
#include <unordered_set>
#include <utility>
#include <vector>

namespace merlin::spec {
namespace {

SourceLocation location(const YAML::Mark& m) {
  if (m.line < 0 || m.column < 0) return {};
  return {m.line + 1, m.column + 1};  // yaml-cpp counts from 0
}

// yaml-cpp tags plain (unquoted) scalars "?"; only a plain "<<" is a merge key.
bool is_merge_key(const YAML::Node& key) { return key.Scalar() == "<<" && key.Tag() == "?"; }

// yaml-cpp's message for a tab in indentation ("illegal map value") does not say why.
std::string tab_hint(std::string_view text, int line) {
  std::size_t pos = 0;
  for (int i = 0; i < line && pos != std::string_view::npos; ++i) {
    pos = text.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  if (pos == std::string_view::npos || line < 0) return "";
  for (; pos < text.size() && (text[pos] == ' ' || text[pos] == '\t'); ++pos)
    if (text[pos] == '\t') return " (YAML does not allow tabs for indentation)";
  return "";
}

class Converter {
 public:
  Converter(const YamlLimits& limits, DiagnosticList& diags, const YAML::Node& root)
      : limits_(limits), diags_(diags), root_(root) {}

  bool convert(const YAML::Node& in, YamlNode& out, int depth) {
    if (failed_) return false;
    out.where = location(in.Mark());
    // A node seen before is reached again through an alias: yaml-cpp shares the anchored
    // node, so its position identifies it. (Nulls may lack a position and have no children.)
    if (!in.IsNull() && in.Mark().pos >= 0 && !seen_.insert(in.Mark().pos).second &&
        ++alias_nodes_ > limits_.max_alias_nodes) {
      auto [written, aliases] = count_written(root_);
      return fail(out.where, std::to_string(aliases) + " uses of aliases expand to more than " +
                                 std::to_string(limits_.max_alias_nodes) +
                                 " YAML nodes (the limit for nodes copied through aliases), on "
                                 "top of the " +
                                 std::to_string(written) + " written; refused (an alias bomb?)");
    }
    if (++count_ > limits_.max_nodes) {
      auto [written, aliases] = count_written(root_);
      const std::string limit =
          "the limit of " + std::to_string(limits_.max_nodes) + " (keys not counted); refused";
      if (aliases == 0)
        return fail(out.where,
                    "the spec has " + std::to_string(written) + " YAML nodes, more than " + limit);
      return fail(out.where, "the spec has " + std::to_string(written) +
                                 " YAML nodes as written and " + std::to_string(aliases) +
                                 " uses of aliases, which expand to more than " + limit);
    }
    if (depth > limits_.max_depth) {
      return fail(out.where, "YAML nested more than " + std::to_string(limits_.max_depth) +
                                 " levels deep (or an alias that contains itself); refused");
    }
    switch (in.Type()) {
      case YAML::NodeType::Scalar:
        out.kind = YamlNode::Kind::kScalar;
        out.scalar = in.Scalar();
        out.plain = in.Tag() == "?";
        return true;
      case YAML::NodeType::Sequence:
        out.kind = YamlNode::Kind::kSequence;
        for (const auto& child : in) {
          out.items.emplace_back();
          if (!convert(child, out.items.back(), depth + 1)) return false;
        }
        return true;
      case YAML::NodeType::Map:
        return convert_map(in, out, depth);
      default:
        out.kind = YamlNode::Kind::kNull;
        return true;
    }
  }

 private:
  bool fail(SourceLocation where, std::string message) {
    diags_.error(where, std::move(message));
    failed_ = true;
    return false;
  }

  bool convert_map(const YAML::Node& in, YamlNode& out, int depth) {
    out.kind = YamlNode::Kind::kMap;
    std::vector<YamlEntry> explicit_entries;
    std::vector<YamlEntry> merged;
    for (const auto& kv : in) {
      YamlEntry e;
      e.key_where = location(kv.first.Mark());
      if (!kv.first.IsScalar() && !kv.first.IsNull()) {
        diags_.error(e.key_where, "map keys must be plain strings");
        ++count_;
        continue;
      }
      e.key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (!convert(kv.second, e.value, depth + 1)) return false;
      if (is_merge_key(kv.first)) {
        add_merge_sources(e, merged);
      } else {
        add_explicit(std::move(e), explicit_entries);
      }
    }
    // PyYAML's order: merged keys first; an explicit key overrides a merged one in place.
    out.entries = std::move(merged);
    for (auto& e : explicit_entries) {
      YamlEntry* existing = find_entry(out.entries, e.key);
      if (existing == nullptr) {
        out.entries.push_back(std::move(e));
      } else {
        *existing = std::move(e);
      }
    }
    return true;
  }

  // A repeated key: PyYAML keeps the last value, so do we, with a warning.
  void add_explicit(YamlEntry e, std::vector<YamlEntry>& entries) {
    YamlEntry* existing = find_entry(entries, e.key);
    if (existing == nullptr) {
      entries.push_back(std::move(e));
      return;
    }
    diags_.warning(e.key_where, "duplicate key '" + e.key + "' (first at line " +
                                    std::to_string(existing->key_where.line) +
                                    "); the last value is used");
    *existing = std::move(e);
  }

  static YamlEntry* find_entry(std::vector<YamlEntry>& entries, const std::string& key) {
    for (auto& have : entries)
      if (have.key == key) return &have;
    return nullptr;
  }

  // `<<: *a` or `<<: [*a, *b]`: earlier sources win over later ones.
  void add_merge_sources(YamlEntry& e, std::vector<YamlEntry>& merged) {
    std::vector<const YamlNode*> sources;
    if (e.value.is_map()) {
      sources.push_back(&e.value);
    } else if (e.value.is_sequence()) {
      for (const auto& item : e.value.items) sources.push_back(&item);
    }
    for (const YamlNode* src : sources) {
      if (!src->is_map()) {
        diags_.error(e.key_where, "the merge key '<<' takes a map or a list of maps, got " +
                                      describe_kind(*src));
        return;
      }
    }
    if (sources.empty()) {
      diags_.error(e.key_where, "the merge key '<<' takes a map or a list of maps, got " +
                                    describe_kind(e.value));
      return;
    }
    for (const YamlNode* src : sources) {
      for (const auto& entry : src->entries) {
        bool present = false;
        for (const auto& have : merged) present = present || have.key == entry.key;
        if (!present) merged.push_back(entry);
      }
    }
  }

  // For a limit's message: the value nodes as written (each once) and the uses of aliases,
  // in a walk that never enters a node twice (so a bomb costs no more than its text).
  std::pair<std::size_t, std::size_t> count_written(const YAML::Node& root) const {
    std::unordered_set<long> seen;
    std::size_t written = 0, aliases = 0;
    std::vector<YAML::Node> stack{root};
    while (!stack.empty()) {
      YAML::Node n = stack.back();
      stack.pop_back();
      if (!n.IsNull() && n.Mark().pos >= 0 && !seen.insert(n.Mark().pos).second) {
        ++aliases;
        continue;
      }
      ++written;
      if (n.IsSequence()) {
        for (const auto& child : n) stack.push_back(child);
      } else if (n.IsMap()) {
        for (const auto& kv : n) stack.push_back(kv.second);
      }
    }
    return {written, aliases};
  }

  const YamlLimits& limits_;
  DiagnosticList& diags_;
  const YAML::Node& root_;
  std::size_t count_ = 0;
  std::size_t alias_nodes_ = 0;
  std::unordered_set<long> seen_;  // positions of the nodes converted so far
  bool failed_ = false;
};

}  // namespace

const YamlEntry* YamlNode::find(std::string_view key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

std::string describe_kind(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::kScalar:
      return "'" + node.scalar + "'";
    case YamlNode::Kind::kSequence:
      return "a list";
    case YamlNode::Kind::kMap:
      return "a map";
    default:
      return "nothing";
  }
}

std::optional<YamlNode> parse_yaml_tree(std::string_view text, const YamlLimits& limits,
                                        DiagnosticList& diags) {
  try {
    YAML::Node root = YAML::Load(std::string(text));
    YamlNode out;
    Converter converter(limits, diags, root);
    if (!converter.convert(root, out, 0)) return std::nullopt;
    return out;
  } catch (const YAML::DeepRecursion& e) {
    diags.error(location(e.mark), "YAML nested too deeply; refused");
  } catch (const YAML::ParserException& e) {
    diags.error(location(e.mark), "YAML syntax error: " + e.msg + tab_hint(text, e.mark.line));
  } catch (const YAML::Exception& e) {
    diags.error(location(e.mark), "cannot read YAML: " + e.msg);
  } catch (const std::exception& e) {
    diags.error({}, std::string("cannot read YAML: ") + e.what());
  } catch (...) {
    diags.error({}, "cannot read YAML: unknown error");
  }
  return std::nullopt;
}

}  // namespace merlin::spec
