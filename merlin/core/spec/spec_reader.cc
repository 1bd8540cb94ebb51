#include "merlin/core/spec/spec_reader.h"

#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/node_reader.h"

namespace merlin::spec {
namespace {

const std::vector<std::string> kBlocks = {"description",       "env",    "batch", "study",
                                          "global.parameters", "merlin", "user"};

void read_description(const YamlEntry& entry, StudySpec& spec, DiagnosticList& diags) {
  const YamlNode& node = entry.value;
  if (node.is_null()) {
    diags.error(entry.key_where, "'description' must hold at least 'name'");
    return;
  }
  if (!expect_map(node, "'description'", diags)) return;
  check_keys(node, {"name", "description"}, "'description'", diags);
  if (const YamlEntry* name = node.find("name")) {
    if (auto t = read_text(name->value, "'name' in 'description'", diags)) {
      spec.name = t->value;
      spec.name_where = t->where;
    } else if (name->value.is_null()) {
      diags.error(name->key_where, "'name' in 'description' is empty");
    }
  } else {
    diags.error(node.where, "missing required key 'name' in 'description'");
  }
  if (const YamlEntry* d = node.find("description")) {
    if (auto t = read_scalar(d->value, "'description' in 'description'", diags))
      spec.description = *t;
  }
}

}  // namespace

bool is_token_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

void read_spec(const YamlNode& root, StudySpec& spec, DiagnosticList& diags) {
  if (root.is_null()) {
    diags.error({}, "the spec is empty; expected a map of blocks (description, study, ...)");
    return;
  }
  if (!root.is_map()) {
    diags.error(root.where, "a spec must be a map of blocks (description, study, ...), got " +
                                describe_kind(root));
    return;
  }
  for (const auto& e : root.entries) {
    bool known = false;
    for (const auto& b : kBlocks) known = known || b == e.key;
    if (!known) {
      diags.error(e.key_where,
                  "unknown top-level block '" + e.key + "'" + suggestion_suffix(e.key, kBlocks));
    }
  }
  if (const YamlEntry* d = root.find("description")) {
    read_description(*d, spec, diags);
  } else {
    diags.error({}, "missing required block 'description'");
  }
  if (const YamlEntry* e = root.find("env")) read_env(e->value, spec, diags);
  if (const YamlEntry* b = root.find("batch")) {
    read_batch(b->value, "'batch'", spec.batch, diags);
    spec.batch_where = b->value.where;
  }
  if (const YamlEntry* s = root.find("study")) {
    if (s->value.is_null() || (s->value.is_sequence() && s->value.items.empty()))
      diags.error(s->key_where, "'study' has no steps");
    read_steps(s->value, spec, diags);
  } else {
    diags.error({}, "missing required block 'study'");
  }
  if (const YamlEntry* p = root.find("global.parameters")) read_parameters(p->value, spec, diags);
  if (const YamlEntry* m = root.find("merlin")) {
    spec.has_merlin_block = true;
    read_merlin(m->value, spec, diags);
  }
  // `user` is free form: it only holds anchors used elsewhere.
}

}  // namespace merlin::spec
