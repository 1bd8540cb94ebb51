// The `study:` list and each step's `run:` block.
#include <algorithm>

#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/field_checks.h"
#include "merlin/core/spec/node_reader.h"
#include "merlin/core/spec/spec_reader.h"

namespace merlin::spec {
namespace {

// The `run:` keys but the schedulers' flag keys (launcher_flag_keys(), added by run_keys()).
const std::vector<std::string> kRunKeys = {
    "cmd", "restart", "depends", "task_queue", "shell", "max_retries", "retry_delay", "nodes",
    "procs", "gpus", "cores per task", "gpus per task", "walltime", "reservation", "exclusive",
    "priority", "qos", "bind", "launch_distribution", "exit_on_error", "batch",
    // Further Merlin/Maestro keys, kept raw in StepRun::other.
    "pre", "post", "num resource set", "launch distribution", "tasks per rs", "rs per node",
    "cpus per rs", "bind gpus", "nested", "use_broker",
    // Extensions: node-local scratch and staging (docs/staging.md).
    "scratch", "stage_out", "stage_in",
    // Extension: data-dependent fan-out (docs/fanout.md).
    "samples_from", "loop",
    // Extension: a step that searches a space of configurations (docs/tuning.md).
    "tune",
    // Extension: the step keeps the broker's credentials in its environment (docs/security.md).
    "pass_broker"};

const std::vector<std::string>& run_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = kRunKeys;
    for (auto& flags : launcher_flag_keys()) k.push_back(std::move(flags));
    return k;
  }();
  return keys;
}

bool is_flags_key(const std::string& key) {
  static const std::vector<std::string> keys = launcher_flag_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Why a stage_out pattern cannot be used, or "" when it can: it is relative to the task's
// scratch dir and names files copied into the workspace task dir, so it may not leave either.
std::string bad_stage_pattern(const std::string& p) {
  if (p.empty()) return "is empty";
  if (p.front() == '/') return "is an absolute path (patterns are relative to the scratch dir)";
  std::size_t start = 0;
  while (start <= p.size()) {
    auto end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    if (p.compare(start, end - start, "..") == 0)
      return "holds '..' (patterns may not leave the task's scratch dir)";
    start = end + 1;
  }
  return "";
}

void read_staging(const YamlNode& node, const std::string& context, StepRun& run,
                  DiagnosticList& diags) {
  if (const YamlEntry* s = node.find("scratch")) {
    const std::string what = "'scratch' in " + context;
    if (!s->value.is_scalar()) {
      diags.error(s->value.where,
                  what + " must be 'auto' or a path, got " + describe_kind(s->value));
    } else if (auto t = read_text(s->value, what, diags)) {
      if (t->value.empty()) diags.error(s->value.where, what + " is empty");
      run.scratch = *t;
    }
  }
  if (const YamlEntry* o = node.find("stage_out")) {
    if (auto list = read_scalar_list(o->value, "'stage_out' in " + context, diags)) {
      for (const auto& t : *list)
        if (auto why = bad_stage_pattern(t.value); !why.empty())
          diags.error(t.where, "stage_out pattern '" + t.value + "' in " + context + " " + why);
      run.stage_out = *list;
    }
    if (!node.find("scratch"))
      diags.error(o->key_where, "'stage_out' in " + context +
                                    " needs 'scratch' (outputs are staged from node-local "
                                    "scratch; add 'scratch: auto')");
  }
  if (const YamlEntry* i = node.find("stage_in")) {
    if (auto list = read_scalar_list(i->value, "'stage_in' in " + context, diags)) {
      for (const auto& t : *list)
        if (t.value.empty())
          diags.error(t.where, "'stage_in' in " + context + " has an empty entry");
      run.stage_in = *list;
    }
    if (!node.find("scratch"))
      diags.error(i->key_where, "'stage_in' in " + context +
                                    " needs 'scratch' (files are staged into node-local "
                                    "scratch; add 'scratch: auto')");
  }
}

struct CountKey {
  const char* key;
  long min;
  std::string StepRun::*field;
};
const CountKey kCounts[] = {{"nodes", 1, &StepRun::nodes},
                            {"procs", 1, &StepRun::procs},
                            {"gpus", 0, &StepRun::gpus},
                            {"cores per task", 1, &StepRun::cores_per_task},
                            {"gpus per task", 0, &StepRun::gpus_per_task}};

const std::pair<const char*, std::string StepRun::*> kRawKeys[] = {
    {"task_queue", &StepRun::task_queue},
    {"shell", &StepRun::shell},
    {"reservation", &StepRun::reservation},
    {"exclusive", &StepRun::exclusive},
    {"priority", &StepRun::priority},
    {"qos", &StepRun::qos},
    {"bind", &StepRun::bind},
    {"launch_distribution", &StepRun::launch_distribution},
    {"launch distribution", &StepRun::launch_distribution}};

void read_step_batch(const YamlNode& node, const std::string& context, StepRun& run,
                     DiagnosticList& diags) {
  std::string where = "'batch' of " + context;
  if (!expect_map(node, where, diags)) return;
  check_keys(node, {"type"}, where, diags);
  if (const YamlEntry* t = node.find("type")) {
    auto v = read_scalar(t->value, "'type' in " + where, diags);
    if (v && !is_batch_type(*v)) {
      diags.error(t->value.where, "batch type '" + *v + "' in " + where +
                                      " is not one of local, slurm, flux, lsf, lsf-srun, pbs" +
                                      suggestion_suffix(*v, batch_types()));
    }
    if (v) run.batch_type = *v;
  }
}

// One run key other than cmd/restart/depends/batch.
void read_run_value(const YamlEntry& e, const std::string& context, StepRun& run,
                    DiagnosticList& diags) {
  const std::string& k = e.key;
  const std::string what = "'" + k + "' in " + context;
  if (k == "max_retries") {
    if (auto v = read_int(e.value, what, 0, diags)) run.max_retries = *v;
    return;
  }
  if (k == "retry_delay") {
    if (auto v = read_non_negative(e.value, what, diags)) run.retry_delay = *v;
    return;
  }
  if (k == "exit_on_error") {
    if (e.value.is_scalar() && (e.value.scalar == "0" || e.value.scalar == "1")) {
      run.exit_on_error = e.value.scalar == "1";
    } else if (auto v = read_bool(e.value, what, diags)) {
      run.exit_on_error = *v;
    }
    return;
  }
  if (k == "pass_broker") {
    if (auto v = read_bool(e.value, what, diags)) run.pass_broker = *v;
    return;
  }
  auto v = read_scalar(e.value, what, diags);
  if (!v) return;
  for (const auto& c : kCounts) {
    if (k != c.key) continue;
    if (!is_count(*v, c.min)) {
      diags.error(e.value.where, what +
                                     (c.min > 0 ? " must be a positive whole number, got '"
                                                : " must be a whole number >= 0, got '") +
                                     *v + "'");
    }
    run.*c.field = *v;
    return;
  }
  if (k == "walltime") {
    if (!is_walltime(*v)) {
      diags.error(e.value.where,
                  what + " must be HH:MM:SS, MM:SS or a number of seconds, got '" + *v + "'");
    }
    run.walltime = *v;
    return;
  }
  if (is_flags_key(k)) {
    run.launcher_flags[k] = *v;
    return;
  }
  for (const auto& [key, field] : kRawKeys) {
    if (k == key) {
      if (v->empty() && (k == "task_queue" || k == "shell"))
        diags.error(e.value.where, what + " is empty");
      run.*field = *v;
      return;
    }
  }
  run.other[k] = *v;
}

}  // namespace

void read_run(const YamlNode& node, const std::string& context, StepRun& run,
              DiagnosticList& diags) {
  check_keys(node, run_keys(), context, diags);
  if (const YamlEntry* c = node.find("cmd")) {
    if (auto t = read_text(c->value, "'cmd' in " + context, diags)) run.cmd = *t;
    if (run.cmd.value.find_first_not_of(" \t\r\n") == std::string::npos)
      diags.error(c->key_where, "'cmd' in " + context + " is empty");
  } else {
    diags.error(node.where, "missing required key 'cmd' in " + context);
  }
  for (const auto& e : node.entries) {
    if (e.key == "cmd") continue;
    if (e.key == "restart") {
      if (auto t = read_text(e.value, "'restart' in " + context, diags)) run.restart = *t;
    } else if (e.key == "depends") {
      if (auto d = read_scalar_list(e.value, "'depends' in " + context, diags)) run.depends = *d;
    } else if (e.key == "batch") {
      read_step_batch(e.value, context, run, diags);
    } else if (e.key == "samples_from") {
      read_samples_from(e, context, run, diags);
    } else if (e.key == "loop") {
      read_loop(e, context, run, diags);
    } else if (e.key == "tune") {
      read_tune(e, context, run, diags);
    } else if (e.key == "scratch" || e.key == "stage_out" || e.key == "stage_in") {
      continue;  // read_staging
    } else if (std::find(run_keys().begin(), run_keys().end(), e.key) != run_keys().end()) {
      read_run_value(e, context, run, diags);
    }
  }
  read_staging(node, context, run, diags);
  if (run.samples_from && run.depends.empty())
    diags.error(run.samples_from->where,
                "'samples_from' in " + context +
                    " needs 'depends': its file is written by an upstream step, and the step "
                    "is expanded when that step finishes");
  if (run.tune) {
    // A tune step's tasks are its trials: it neither fans out over rows nor loops.
    for (const char* other : {"samples_from", "loop"})
      if (const YamlEntry* o = node.find(other))
        diags.error(o->key_where, "'" + std::string(other) + "' in " + context +
                                      " cannot be used with 'tune': a tune step's tasks are its "
                                      "trials (docs/tuning.md)");
  }
}

void read_steps(const YamlNode& node, StudySpec& spec, DiagnosticList& diags) {
  if (node.is_null()) return;
  if (!node.is_sequence()) {
    diags.error(node.where, "'study' must be a list of steps, got " + describe_kind(node));
    return;
  }
  int index = 0;
  for (const auto& item : node.items) {
    ++index;
    std::string context = "step #" + std::to_string(index);
    if (!expect_map(item, context + " in 'study'", diags)) {
      if (item.is_null()) diags.error(item.where, context + " in 'study' is empty");
      continue;
    }
    Step step;
    step.where = item.where;
    if (const YamlEntry* n = item.find("name")) {
      step.where = n->key_where;
      if (auto v = read_scalar(n->value, "'name' of " + context, diags)) {
        step.name = *v;
        context = "step '" + *v + "'";
        if (!is_token_name(*v)) {
          diags.error(n->value.where,
                      "step name '" + *v + "' may only hold letters, digits, '_', '-' and '.'");
        } else if (auto why = unsafe_dir_name_reason(*v, kMaxStepNameBytes); !why.empty()) {
          // The name is a directory of the workspace and the stem of the step's scripts.
          diags.error(n->value.where, "step name '" + *v + "' cannot be a directory name: " + why);
        }
      }
    } else {
      diags.error(item.where, "missing required key 'name' in " + context);
    }
    check_keys(item, {"name", "description", "run"}, context, diags);
    if (const YamlEntry* d = item.find("description")) {
      if (auto v = read_scalar(d->value, "'description' in " + context, diags))
        step.description = *v;
    }
    if (const YamlEntry* r = item.find("run")) {
      step.run.where = r->key_where;
      if (r->value.is_null()) diags.error(r->key_where, "'run' in " + context + " is empty");
      if (expect_map(r->value, "'run' in " + context, diags))
        read_run(r->value, context, step.run, diags);
    } else {
      diags.error(item.where, "missing required key 'run' in " + context);
    }
    spec.steps.push_back(std::move(step));
  }
}

}  // namespace merlin::spec
