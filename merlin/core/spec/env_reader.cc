// The `env:` block: variables, labels, sources, dependencies.
#include "merlin/core/spec/node_reader.h"
#include "merlin/core/spec/python_scalar.h"
#include "merlin/core/spec/spec_reader.h"
#include "merlin/core/spec/token.h"

namespace merlin::spec {
namespace {

// A variable's value: a scalar as Merlin writes it (python_scalar.h), or a list of them joined
// with spaces. (Merlin pastes Python's `str(list)`, "['a', 'b']", which no shell command can
// use.)
std::optional<std::string> variable_value(const YamlEntry& e, const std::string& what,
                                          DiagnosticList& diags) {
  const YamlNode& v = e.value;
  if (v.is_scalar()) return python_str(v);
  if (v.is_null()) {
    diags.error(e.key_where, what + " has no value");
    return std::nullopt;
  }
  if (v.is_map()) {
    diags.error(v.where, what + " must be a value or a list of values, got a map");
    return std::nullopt;
  }
  auto items = read_scalar_list(v, what, diags);
  if (!items) return std::nullopt;
  std::string joined;
  for (const auto& item : v.items) joined += (joined.empty() ? "" : " ") + python_str(item);
  return joined;
}

void read_variables(const YamlNode& node, const std::string& block, std::vector<Variable>& out,
                    DiagnosticList& diags) {
  if (!expect_map(node, "'env." + block + "'", diags)) return;
  for (const auto& e : node.entries) {
    std::string what = (block == "labels" ? "label '" : "variable '") + e.key + "'";
    if (!is_token_name(e.key)) {
      diags.error(e.key_where, what + " cannot be used as $(" + e.key +
                                   "): names may only hold letters, digits, '_', '-' and '.'");
    } else if (is_reserved_token(e.key) && e.key != "OUTPUT_PATH") {
      diags.error(e.key_where, what + " redefines a name Merlin reserves");
    }
    // A bad value is still a definition: keep the name so its uses are not reported too.
    auto value = variable_value(e, what, diags);
    out.push_back(Variable{e.key, value.value_or(""), e.key_where});
  }
}

void read_dependencies(const YamlNode& node, DiagnosticList& diags) {
  if (!expect_map(node, "'env.dependencies'", diags)) return;
  check_keys(node, {"paths", "git", "spack"}, "'env.dependencies'", diags);
  for (const char* list_key : {"paths", "git"}) {
    const YamlEntry* e = node.find(list_key);
    if (e != nullptr && !e->value.is_sequence() && !e->value.is_null()) {
      diags.error(e->value.where, std::string("'") + list_key +
                                      "' in 'env.dependencies' must be a list, got " +
                                      describe_kind(e->value));
    }
  }
  if (const YamlEntry* e = node.find("spack")) {
    expect_map(e->value, "'spack' in 'env.dependencies'", diags);
  }
}

}  // namespace

void read_env(const YamlNode& node, StudySpec& spec, DiagnosticList& diags) {
  if (!expect_map(node, "'env'", diags)) return;
  check_keys(node, {"variables", "labels", "sources", "dependencies"}, "'env'", diags);
  if (const YamlEntry* v = node.find("variables"))
    read_variables(v->value, "variables", spec.variables, diags);
  if (const YamlEntry* l = node.find("labels"))
    read_variables(l->value, "labels", spec.labels, diags);
  if (const YamlEntry* s = node.find("sources")) {
    if (auto items = read_scalar_list(s->value, "'env.sources'", diags))
      spec.sources = texts_to_strings(*items);
  }
  if (const YamlEntry* d = node.find("dependencies")) read_dependencies(d->value, diags);
}

}  // namespace merlin::spec
