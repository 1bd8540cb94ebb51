// `global.parameters` and the `merlin:` block (resources/workers, samples).
#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/env_names.h"
#include "merlin/core/spec/field_checks.h"
#include "merlin/core/spec/node_reader.h"
#include "merlin/core/spec/python_scalar.h"
#include "merlin/core/spec/spec_reader.h"
#include "merlin/core/spec/token.h"

namespace merlin::spec {
namespace {

void read_worker(const YamlEntry& e, StudySpec& spec, DiagnosticList& diags) {
  WorkerSpec w;
  w.name = e.key;
  w.where = e.key_where;
  w.steps = {"all"};  // Merlin's default for a worker that names no steps
  const std::string context = "worker '" + e.key + "'";
  if (!e.value.is_null() && expect_map(e.value, context, diags)) {
    const YamlNode& node = e.value;
    check_keys(node, {"args", "steps", "nodes", "batch", "machines"}, context, diags);
    if (const YamlEntry* a = node.find("args")) {
      if (auto v = read_scalar(a->value, "'args' of " + context, diags)) w.args = *v;
    }
    if (const YamlEntry* s = node.find("steps")) {
      if (auto v = read_scalar_list(s->value, "'steps' of " + context, diags))
        w.steps = texts_to_strings(*v);
    }
    if (const YamlEntry* n = node.find("nodes")) {
      if (auto v = read_scalar(n->value, "'nodes' of " + context, diags)) {
        if (!is_count(*v, 1)) {
          diags.error(n->value.where, "'nodes' of " + context +
                                          " must be a positive whole number, got '" + *v + "'");
        }
        w.nodes = *v;
      }
    }
    if (const YamlEntry* b = node.find("batch"); b != nullptr && !b->value.is_null()) {
      BatchSpec batch = spec.batch;  // a worker's batch keys override the study's
      read_batch(b->value, "'batch' of " + context, batch, diags);
      w.batch = batch;
      w.batch_where = b->value.where;
    }
    if (const YamlEntry* m = node.find("machines")) {
      if (auto v = read_scalar_list(m->value, "'machines' of " + context, diags))
        w.machines = texts_to_strings(*v);
    }
  }
  spec.workers.push_back(std::move(w));
}

void read_resources(const YamlNode& node, StudySpec& spec, DiagnosticList& diags) {
  if (!expect_map(node, "'merlin.resources'", diags)) return;
  check_keys(node, {"task_server", "overlap", "workers"}, "'merlin.resources'", diags);
  if (const YamlEntry* t = node.find("task_server")) {
    if (auto v = read_scalar(t->value, "'task_server' in 'merlin.resources'", diags))
      spec.task_server = *v;
  }
  if (const YamlEntry* o = node.find("overlap")) {
    if (auto v = read_bool(o->value, "'overlap' in 'merlin.resources'", diags)) spec.overlap = *v;
  }
  if (const YamlEntry* w = node.find("workers")) {
    if (expect_map(w->value, "'workers' in 'merlin.resources'", diags)) {
      for (const auto& e : w->value.entries) read_worker(e, spec, diags);
    }
  }
}

void read_samples(const YamlEntry& entry, StudySpec& spec, DiagnosticList& diags) {
  const YamlNode& node = entry.value;
  const std::string ctx = "'merlin.samples'";
  if (node.is_null() || !expect_map(node, ctx, diags)) return;
  check_keys(node,
             {"generate", "file", "column_labels", "level_max_dirs", "allow_shell_metacharacters"},
             ctx, diags);
  SamplesSpec s;
  s.where = entry.key_where;
  if (const YamlEntry* g = node.find("generate")) {
    if (expect_map(g->value, "'generate' in " + ctx, diags)) {
      check_keys(g->value, {"cmd"}, "'generate' in " + ctx, diags);
      if (const YamlEntry* c = g->value.find("cmd")) {
        if (auto v = read_scalar(c->value, "'cmd' of 'generate' in " + ctx, diags))
          s.generate_cmd = *v;
      }
    }
  }
  if (const YamlEntry* f = node.find("file")) {
    if (auto v = read_scalar(f->value, "'file' in " + ctx, diags)) s.file = *v;
  }
  if (const YamlEntry* c = node.find("column_labels")) {
    s.column_labels_where = c->value.where;
    if (auto v = read_scalar_list(c->value, "'column_labels' in " + ctx, diags)) {
      for (const auto& t : *v) {
        check_column_label(t, s.column_labels, diags);
        s.column_labels.push_back(t.value);
      }
    }
  }
  if (const YamlEntry* l = node.find("level_max_dirs")) {
    if (auto v = read_int(l->value, "'level_max_dirs' in " + ctx, 2, diags)) s.level_max_dirs = *v;
  }
  if (const YamlEntry* a = node.find("allow_shell_metacharacters")) {
    if (auto v = read_bool(a->value, "'allow_shell_metacharacters' in " + ctx, diags))
      spec.allow_shell_metachars = *v;
  }
  spec.samples = std::move(s);
}

}  // namespace

void check_column_label(const Text& t, const std::vector<std::string>& earlier,
                        DiagnosticList& diags) {
  const std::string column = std::to_string(earlier.size() + 1);
  if (!is_token_name(t.value)) {
    diags.error(t.where,
                "column label '" + t.value + "' may only hold letters, digits, '_', '-' and '.'");
  } else if (is_reserved_token(t.value)) {
    diags.error(t.where, "column label '" + t.value + "' redefines a name Merlin reserves");
  } else if (auto conflict = env_name_conflict(t.value); conflict && is_shell_identifier(t.value)) {
    // Sample values are exported under their labels: see env_names.h.
    diags.error(t.where, "column label '" + t.value + "' (column " + column + ") " +
                             describe_env_conflict(t.value, *conflict) +
                             "; rename the column (see docs/sample-safety.md)");
  }
  for (const auto& e : earlier)
    if (e == t.value) diags.error(t.where, "duplicate column label '" + t.value + "'");
}

void read_parameters(const YamlNode& node, StudySpec& spec, DiagnosticList& diags) {
  if (!expect_map(node, "'global.parameters'", diags)) return;
  for (const auto& e : node.entries) {
    const std::string context = "parameter '" + e.key + "'";
    if (!is_token_name(e.key)) {
      diags.error(e.key_where, context + " cannot be used as $(" + e.key +
                                   "): names may only hold letters, digits, '_', '-' and '.'");
    } else if (is_reserved_token(e.key)) {
      diags.error(e.key_where, context + " redefines a name Merlin reserves");
    }
    if (e.value.is_null()) {
      diags.error(e.key_where, context + " has no 'values'");
      continue;
    }
    if (!expect_map(e.value, context, diags)) continue;
    check_keys(e.value, {"values", "label"}, context, diags);
    Parameter p;
    p.name = e.key;
    p.where = e.key_where;
    p.label = e.key + ".%%";
    if (const YamlEntry* v = e.value.find("values")) {
      if (auto items = read_scalar_list(v->value, "'values' of " + context, diags)) {
        for (const auto& item : v->value.items) p.values.push_back(python_str(item));
        if (p.values.empty()) diags.error(v->value.where, "'values' of " + context + " is empty");
      }
    } else {
      diags.error(e.value.where, "missing required key 'values' in " + context);
    }
    if (const YamlEntry* l = e.value.find("label")) {
      if (auto v = read_scalar(l->value, "'label' of " + context, diags)) p.label = *v;
    }
    spec.parameters.push_back(std::move(p));
  }
}

void read_merlin(const YamlNode& node, StudySpec& spec, DiagnosticList& diags) {
  if (node.is_null() || !expect_map(node, "'merlin'", diags)) return;
  check_keys(node, {"resources", "samples", "combine_parameters", "layout", "finished_markers"},
             "'merlin'", diags);
  if (const YamlEntry* l = node.find("layout")) {
    if (auto v = read_scalar(l->value, "'merlin.layout'", diags)) {
      if (*v == "lean") {
        spec.layout = WorkspaceLayout::kLean;
      } else if (*v != "merlin") {
        diags.error(l->value.where, "'merlin.layout' is '" + *v +
                                        "'; it is 'merlin' (the default: Merlin's workspace) or "
                                        "'lean' (one directory per sample, output in logs; see "
                                        "docs/lean-workspace.md)" +
                                        suggestion_suffix(*v, {"merlin", "lean"}));
      }
    }
  }
  if (const YamlEntry* f = node.find("finished_markers")) {
    if (auto v = read_bool(f->value, "'merlin.finished_markers'", diags))
      spec.finished_markers = *v;
  }
  if (const YamlEntry* c = node.find("combine_parameters")) {
    spec.combine_parameters_where = c->value.where;
    if (auto v = read_scalar(c->value, "'merlin.combine_parameters'", diags)) {
      if (*v == "cartesian") {
        spec.combine_parameters = ParameterCombination::kCartesian;
      } else if (*v != "zip") {
        diags.error(c->value.where, "'merlin.combine_parameters' is '" + *v +
                                        "'; it is 'zip' (the default: lists paired index-wise) "
                                        "or 'cartesian' (every combination)" +
                                        suggestion_suffix(*v, {"zip", "cartesian"}));
      }
    }
  }
  if (const YamlEntry* r = node.find("resources")) read_resources(r->value, spec, diags);
  if (const YamlEntry* s = node.find("samples")) read_samples(*s, spec, diags);
}

}  // namespace merlin::spec
