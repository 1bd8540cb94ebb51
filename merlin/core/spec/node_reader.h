#pragma once
/// Typed reads from a YamlNode for the spec reader: each reports a "must be X, got Y" diagnostic
/// at the node's location when the node has the wrong shape. `what` names the value in messages,
/// e.g. "'max_retries' in step 'sim'". A YAML null (`key:` with nothing) reads as "not set".
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/spec/diagnostic_list.h"
#include "merlin/core/spec/study_spec.h"
#include "merlin/core/spec/yaml_tree.h"

namespace merlin::spec {

/// Reports each key of `map` not in `allowed` as "unknown key 'k' in <context> (did you mean..)".
void check_keys(const YamlNode& map, const std::vector<std::string>& allowed,
                const std::string& context, DiagnosticList& diags);

/// True when `node` is a map; reports "<what> must be a map" otherwise (null is silently false).
bool expect_map(const YamlNode& node, const std::string& what, DiagnosticList& diags);

/// The scalar's text; nullopt for null (no report) or a list/map (reported).
std::optional<std::string> read_scalar(const YamlNode& node, const std::string& what,
                                       DiagnosticList& diags);

/// The scalar with its location.
std::optional<Text> read_text(const YamlNode& node, const std::string& what, DiagnosticList& diags);

/// true/false (also yes/no/on/off, any case, as YAML 1.1 readers such as PyYAML accept).
std::optional<bool> read_bool(const YamlNode& node, const std::string& what, DiagnosticList& diags);

/// A whole number in [min_value, INT_MAX].
std::optional<int> read_int(const YamlNode& node, const std::string& what, int min_value,
                            DiagnosticList& diags);

/// A number >= 0 (e.g. seconds).
std::optional<double> read_non_negative(const YamlNode& node, const std::string& what,
                                        DiagnosticList& diags);

/// A list of scalars; nullopt (reported) when not a list or an item is not a scalar.
std::optional<std::vector<Text>> read_scalar_list(const YamlNode& node, const std::string& what,
                                                  DiagnosticList& diags);

/// Just the strings of `read_scalar_list`.
std::vector<std::string> texts_to_strings(const std::vector<Text>& texts);

}  // namespace merlin::spec
