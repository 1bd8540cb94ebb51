// A step's `samples_from:` and `loop:` blocks (extensions, docs/fanout.md).
#include "merlin/core/spec/node_reader.h"
#include "merlin/core/spec/spec_reader.h"

namespace merlin::spec {

void read_samples_from(const YamlEntry& entry, const std::string& context, StepRun& run,
                       DiagnosticList& diags) {
  const std::string what = "'samples_from' in " + context;
  const YamlNode& node = entry.value;
  if (node.is_null()) {
    diags.error(entry.key_where, what + " is empty (it needs 'file' and 'column_labels')");
    return;
  }
  if (!expect_map(node, what, diags)) return;
  check_keys(node, {"file", "column_labels", "max_rows"}, what, diags);
  SamplesFrom from;
  from.where = entry.key_where;
  if (const YamlEntry* f = node.find("file")) {
    if (auto t = read_text(f->value, "'file' of " + what, diags)) {
      if (t->value.empty()) diags.error(f->value.where, "'file' of " + what + " is empty");
      from.file = *t;
    }
  } else {
    diags.error(node.where, "missing required key 'file' in " + what);
  }
  if (const YamlEntry* c = node.find("column_labels")) {
    if (auto list = read_scalar_list(c->value, "'column_labels' of " + what, diags)) {
      for (const auto& t : *list) {
        check_column_label(t, from.column_labels, diags);
        from.column_labels.push_back(t.value);
      }
      if (list->empty())
        diags.error(c->value.where, "'column_labels' of " + what + " names no column");
    }
  } else {
    diags.error(node.where, "missing required key 'column_labels' in " + what);
  }
  if (const YamlEntry* m = node.find("max_rows")) {
    if (auto v = read_int(m->value, "'max_rows' of " + what, 1, diags))
      from.max_rows = static_cast<std::uint64_t>(*v);
  }
  run.samples_from = std::move(from);
}

void read_loop(const YamlEntry& entry, const std::string& context, StepRun& run,
               DiagnosticList& diags) {
  const std::string what = "'loop' in " + context;
  const YamlNode& node = entry.value;
  if (node.is_null()) {
    diags.error(entry.key_where, what + " is empty (it needs 'back_to' and 'max_iterations')");
    return;
  }
  if (!expect_map(node, what, diags)) return;
  check_keys(node, {"back_to", "max_iterations"}, what, diags);
  LoopSpec loop;
  loop.where = entry.key_where;
  if (const YamlEntry* b = node.find("back_to")) {
    if (auto t = read_text(b->value, "'back_to' of " + what, diags)) loop.back_to = *t;
  } else {
    diags.error(node.where, "missing required key 'back_to' in " + what);
  }
  if (const YamlEntry* m = node.find("max_iterations"); m && m->value.is_null()) {
    // `max_iterations:` left empty (or `~`) is no bound at all, not "the default".
    diags.error(m->key_where, what +
                                  " has no bound: 'max_iterations' is empty; give it a whole "
                                  "number of at least 1 (a loop runs at most that many times "
                                  "in all)");
  } else if (m) {
    if (auto v = read_int(m->value, "'max_iterations' of " + what, 1, diags))
      loop.max_iterations = *v;
  } else {
    diags.error(node.where, what +
                                " has no bound: add 'max_iterations' (a loop runs at most that "
                                "many times in all)");
  }
  run.loop = std::move(loop);
}

}  // namespace merlin::spec
