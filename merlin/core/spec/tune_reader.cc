// A step's `tune:` block (an extension, docs/tuning.md): the shape and each value alone.
// Clashes with the rest of the spec are checked by the validator (tune_check.cc).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/env_names.h"
#include "merlin/core/spec/node_reader.h"
#include "merlin/core/spec/spec_reader.h"
#include "merlin/core/spec/token.h"
#include "merlin/core/spec/tune_method_names.h"

namespace merlin::spec {
namespace {

const std::vector<std::string> kTuneKeys = {"method", "trials", "seed",    "space",
                                            "budget", "metric", "brackets", "prune"};
const std::vector<std::string> kMethods(std::begin(kTuneMethodNames),
                                        std::end(kTuneMethodNames));
const std::vector<std::string> kKinds = {"uniform", "log_uniform", "integer", "choice"};

// The number a scalar holds, or nullopt (reported). Decimal or exponent form, a leading '+'
// allowed; NaN and infinities are refused.
std::optional<double> read_number(const YamlNode& node, const std::string& what,
                                  DiagnosticList& diags) {
  auto s = read_scalar(node, what, diags);
  if (!s) {
    if (node.is_null()) diags.error(node.where, what + " is empty; give a number");
    return std::nullopt;
  }
  std::string_view text = *s;
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    diags.error(node.where, what + " must be a number, got '" + *s + "'");
    return std::nullopt;
  }
  if (!std::isfinite(v)) {
    diags.error(node.where, what + " must be a finite number, got '" + *s + "'");
    return std::nullopt;
  }
  return v;
}

// A whole number in [min_value, max_value], or nullopt (reported).
std::optional<std::uint64_t> read_whole(const YamlNode& node, const std::string& what,
                                        std::uint64_t min_value, std::uint64_t max_value,
                                        const std::string& over_max, DiagnosticList& diags) {
  auto s = read_scalar(node, what, diags);
  if (!s) {
    if (node.is_null()) diags.error(node.where, what + " is empty; give a whole number");
    return std::nullopt;
  }
  std::string_view text = *s;
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool digits = !text.empty() && ptr == text.data() + text.size();
  if (digits && ec == std::errc::result_out_of_range) {
    diags.error(node.where,
                what + " is '" + *s + "', more than " + std::to_string(max_value) + over_max);
    return std::nullopt;
  }
  if (!digits || ec != std::errc()) {
    diags.error(node.where, what + " must be a whole number >= " + std::to_string(min_value) +
                                ", got '" + *s + "'");
    return std::nullopt;
  }
  if (v < min_value) {
    diags.error(node.where,
                what + " must be at least " + std::to_string(min_value) + ", got '" + *s + "'");
    return std::nullopt;
  }
  if (v > max_value) {
    diags.error(node.where, what + " is " + std::to_string(v) + ", more than " +
                                std::to_string(max_value) + over_max);
    return std::nullopt;
  }
  return v;
}

// A name the trial's command reads as `$(NAME)` (a space dimension, the budget token): a token
// name, not one Merlin or a tune step reserves, not an environment name merlin or the shell
// needs (a trial's configuration is exported to its environment, as a sample's values are).
void check_tune_name(const std::string& name, SourceLocation where, const std::string& what,
                     DiagnosticList& diags) {
  if (!is_token_name(name)) {
    diags.error(where, what + " cannot be used as $(" + name +
                           "): names may only hold letters, digits, '_', '-' and '.'");
  } else if (is_reserved_token(name) || is_tune_token(name)) {
    diags.error(where, what + " redefines a name Merlin reserves");
  } else if (auto conflict = env_name_conflict(name); conflict && is_shell_identifier(name)) {
    diags.error(where, what + " " + describe_env_conflict(name, *conflict) + "; rename it");
  }
}

// `[lo, hi]` of a range dimension: two finite numbers.
bool read_range(const YamlEntry& kind, const std::string& what, TuneDimension& dim,
                DiagnosticList& diags) {
  const YamlNode& v = kind.value;
  if (v.is_null()) {
    diags.error(kind.key_where, what + " is empty; give [low, high]");
    return false;
  }
  if (!v.is_sequence() || v.items.size() != 2) {
    diags.error(v.where, what + " must be a list of two numbers [low, high], got " +
                             (v.is_sequence() ? "a list of " + std::to_string(v.items.size())
                                              : describe_kind(v)));
    return false;
  }
  auto lo = read_number(v.items[0], "the low end of " + what, diags);
  auto hi = read_number(v.items[1], "the high end of " + what, diags);
  if (!lo || !hi) return false;
  dim.low = *lo;
  dim.high = *hi;
  return true;
}

// The kind and range of a dimension (`dim` keeps what could be read).
void read_kind(const YamlEntry& e, const std::string& what, TuneDimension& dim,
               DiagnosticList& diags) {
  const YamlNode& node = e.value;
  if (node.is_null()) {
    diags.error(e.key_where, what +
                                 " is empty; give one of {uniform: [lo, hi]}, {log_uniform: "
                                 "[lo, hi]}, {integer: [lo, hi]}, {choice: [a, b, ...]}");
    return;
  }
  if (!expect_map(node, what, diags)) return;
  check_keys(node, kKinds, what, diags);
  const YamlEntry* kind = nullptr;
  for (const auto& k : node.entries) {
    if (std::find(kKinds.begin(), kKinds.end(), k.key) == kKinds.end()) continue;
    if (kind != nullptr) {
      diags.error(k.key_where, what + " has both '" + kind->key + "' and '" + k.key +
                                   "'; a dimension is exactly one of uniform, log_uniform, "
                                   "integer, choice");
      return;
    }
    kind = &k;
  }
  if (kind == nullptr) {
    if (node.entries.empty() ||
        std::none_of(node.entries.begin(), node.entries.end(),
                     [](const YamlEntry& k) { return did_you_mean(k.key, kKinds).has_value(); }))
      diags.error(node.where, what + " needs one of uniform, log_uniform, integer, choice");
    return;
  }
  const std::string kind_what = "'" + kind->key + "' of " + what;
  if (kind->key == "choice") {
    dim.kind = TuneDimension::Kind::kChoice;
    if (kind->value.is_null()) {
      diags.error(kind->key_where, kind_what + " is empty; give a list of values");
      return;
    }
    auto list = read_scalar_list(kind->value, kind_what, diags);
    if (!list) return;
    if (list->empty()) {
      diags.error(kind->value.where, kind_what + " is empty; give a list of values");
      return;
    }
    dim.choices = texts_to_strings(*list);
    return;
  }
  if (!read_range(*kind, kind_what, dim, diags)) return;
  const YamlNode& range = kind->value;
  if (kind->key == "uniform") {
    dim.kind = TuneDimension::Kind::kUniform;
    if (!(dim.low < dim.high))
      diags.error(range.where, kind_what + " is [" + range.items[0].scalar + ", " +
                                   range.items[1].scalar +
                                   "]; the low end must be below the high end");
  } else if (kind->key == "log_uniform") {
    dim.kind = TuneDimension::Kind::kLogUniform;
    if (!(dim.low > 0))
      diags.error(range.items[0].where, kind_what + " starts at " + range.items[0].scalar +
                                            "; a log-uniform range must be above 0");
    else if (!(dim.low < dim.high))
      diags.error(range.where, kind_what + " is [" + range.items[0].scalar + ", " +
                                   range.items[1].scalar +
                                   "]; the low end must be below the high end");
  } else {
    dim.kind = TuneDimension::Kind::kInteger;
    bool whole = true;
    for (std::size_t i = 0; i < 2; ++i) {
      const double v = i == 0 ? dim.low : dim.high;
      if (v != std::floor(v) || std::fabs(v) > 9007199254740992.0) {
        diags.error(range.items[i].where,
                    kind_what + " must hold whole numbers, got '" + range.items[i].scalar + "'");
        whole = false;
      }
    }
    if (whole && dim.low > dim.high)
      diags.error(range.where, kind_what + " is [" + range.items[0].scalar + ", " +
                                   range.items[1].scalar +
                                   "]; the low end must not be above the high end");
  }
}

// A dimension is recorded even when its kind is wrong, so that the command's `$(NAME)` is not
// also reported as an unknown token (the spec is refused anyway).
void read_dimension(const YamlEntry& e, const std::string& space_what, TuneSpec& tune,
                    DiagnosticList& diags) {
  const std::string what = "dimension '" + e.key + "' of " + space_what;
  TuneDimension dim;
  dim.name = e.key;
  dim.where = e.key_where;
  check_tune_name(e.key, e.key_where, what, diags);
  read_kind(e, what, dim, diags);
  tune.space.push_back(std::move(dim));
}

void read_space(const YamlEntry& s, const std::string& what, TuneSpec& tune,
                DiagnosticList& diags) {
  const std::string space_what = "'space' of " + what;
  if (s.value.is_null() || (s.value.is_map() && s.value.entries.empty())) {
    diags.error(s.key_where, space_what +
                                 " is empty; give at least one dimension, e.g. 'LR: "
                                 "{log_uniform: [1.0e-4, 1.0e-1]}'");
    return;
  }
  if (!expect_map(s.value, space_what, diags)) return;
  for (const auto& e : s.value.entries) read_dimension(e, space_what, tune, diags);
}

void read_budget(const YamlEntry& b, const std::string& what, TuneSpec& tune,
                 DiagnosticList& diags) {
  const std::string budget_what = "'budget' of " + what;
  if (b.value.is_null()) {
    diags.error(b.key_where, budget_what + " is empty (it needs 'token' and 'max')");
    return;
  }
  if (!expect_map(b.value, budget_what, diags)) return;
  check_keys(b.value, {"token", "min", "max", "eta"}, budget_what, diags);
  TuneBudget budget;
  budget.where = b.key_where;
  bool ok = true;
  if (const YamlEntry* t = b.value.find("token")) {
    if (auto v = read_text(t->value, "'token' of " + budget_what, diags)) {
      budget.token = v->value;
      check_tune_name(v->value, v->where, "budget token '" + v->value + "' of " + what, diags);
    } else if (t->value.is_null()) {
      diags.error(t->key_where, "'token' of " + budget_what + " is empty");
    }
  } else {
    diags.error(b.value.where, "missing required key 'token' in " + budget_what +
                                   " (the token that carries a trial's budget, e.g. EPOCHS)");
  }
  auto number = [&](const char* key, double& field) {
    const YamlEntry* e = b.value.find(key);
    if (e == nullptr) return;
    if (auto v = read_number(e->value, "'" + std::string(key) + "' of " + budget_what, diags))
      field = *v;
    else
      ok = false;
  };
  number("min", budget.min);
  number("max", budget.max);
  number("eta", budget.eta);
  if (b.value.find("max") == nullptr) {
    diags.error(b.value.where, "missing required key 'max' in " + budget_what +
                                   " (the largest budget a trial gets)");
    ok = false;
  }
  if (ok) {
    const YamlEntry* min_entry = b.value.find("min");  // the default, 1, is above 0
    const YamlNode& max_node = b.value.find("max")->value;
    if (!(budget.min > 0))
      diags.error(min_entry->value.where, "'min' of " + budget_what + " must be above 0, got '" +
                                              min_entry->value.scalar + "'");
    else if (budget.max < budget.min)
      diags.error(max_node.where, "'max' of " + budget_what + " is " + max_node.scalar +
                                      ", below 'min' (" +
                                      (min_entry ? min_entry->value.scalar : "1") + ")");
    if (!(budget.eta > 1)) {
      const YamlNode& eta = b.value.find("eta")->value;  // the default, 3, is above 1
      diags.error(eta.where, "'eta' of " + budget_what + " must be above 1, got '" + eta.scalar +
                                 "' (each rung keeps 1/eta of the trials)");
    }
  }
  tune.budget = std::move(budget);
}

void read_metric(const YamlEntry& m, const std::string& what, TuneSpec& tune,
                 DiagnosticList& diags) {
  const std::string metric_what = "'metric' of " + what;
  tune.metric.where = m.key_where;
  if (m.value.is_null()) {
    diags.error(m.key_where, metric_what + " is empty (it needs 'file')");
    return;
  }
  if (!expect_map(m.value, metric_what, diags)) return;
  check_keys(m.value, {"file", "key", "mode"}, metric_what, diags);
  if (const YamlEntry* f = m.value.find("file")) {
    if (auto t = read_text(f->value, "'file' of " + metric_what, diags)) {
      if (t->value.empty()) diags.error(f->value.where, "'file' of " + metric_what + " is empty");
      tune.metric.file = *t;
    } else if (f->value.is_null()) {
      diags.error(f->key_where, "'file' of " + metric_what + " is empty");
    }
  } else {
    diags.error(m.value.where, "missing required key 'file' in " + metric_what +
                                   " (the file each trial appends its results to)");
  }
  if (const YamlEntry* k = m.value.find("key")) {
    if (auto v = read_scalar(k->value, "'key' of " + metric_what, diags)) {
      if (v->empty()) diags.error(k->value.where, "'key' of " + metric_what + " is empty");
      tune.metric.key = *v;
    }
  }
  if (const YamlEntry* o = m.value.find("mode")) {
    if (auto v = read_scalar(o->value, "'mode' of " + metric_what, diags)) {
      if (*v == "max") {
        tune.metric.maximize = true;
      } else if (*v != "min") {
        diags.error(o->value.where, "'mode' of " + metric_what + " is '" + *v +
                                        "'; it is 'min' (the default: smaller is better) or "
                                        "'max'" +
                                        suggestion_suffix(*v, {"min", "max"}));
      }
    }
  }
}

// `prune: true | false | SECONDS`: how often a running trial is checked (docs/tuning.md,
// "Pruning"); asha and hyperband only.
void read_prune(const YamlEntry& p, const std::string& what, const std::string& method,
                bool has_rungs, TuneSpec& tune, DiagnosticList& diags) {
  const std::string prune_what = "'prune' of " + what;
  auto text = read_scalar(p.value, prune_what, diags);
  if (!text) {
    if (p.value.is_null()) diags.error(p.key_where, prune_what + " is empty; give true, false or "
                                                                 "the seconds between checks");
    return;
  }
  double seconds = 0;
  if (*text == "true" || *text == "false") {
    seconds = *text == "true" ? 1.0 : 0.0;
  } else {
    auto v = read_number(p.value, prune_what + " (true, false or the seconds between checks)",
                         diags);
    if (!v) return;
    if (*v < 0.1 || *v > 3600) {
      diags.error(p.value.where, prune_what + " is " + *text +
                                     " seconds; give 0.1 to 3600, or false to never prune");
      return;
    }
    seconds = *v;
  }
  if (!has_rungs && seconds > 0) {
    diags.error(p.key_where, prune_what + " is for methods 'asha' and 'hyperband', which compare "
                                          "trials at each rung; this tune uses '" + method + "'");
    return;
  }
  tune.prune_every = seconds;
}

}  // namespace

void read_tune(const YamlEntry& entry, const std::string& context, StepRun& run,
               DiagnosticList& diags) {
  const std::string what = "'tune' in " + context;
  const YamlNode& node = entry.value;
  if (node.is_null()) {
    diags.error(entry.key_where, what + " is empty (it needs 'trials', 'space' and 'metric')");
    return;
  }
  if (!expect_map(node, what, diags)) return;
  check_keys(node, kTuneKeys, what, diags);
  TuneSpec tune;
  tune.where = entry.key_where;
  std::string method = "asha";
  bool method_ok = true;
  if (const YamlEntry* m = node.find("method")) {
    if (auto v = read_scalar(m->value, "'method' of " + what, diags)) {
      auto it = std::find(kMethods.begin(), kMethods.end(), *v);
      if (it == kMethods.end()) {
        method_ok = false;
        diags.error(m->value.where, "'method' of " + what + " is '" + *v +
                                        "'; it is one of random, sobol, asha (the default), "
                                        "hyperband" +
                                        suggestion_suffix(*v, kMethods));
      } else {
        method = *v;
        tune.method = static_cast<TuneMethod>(it - kMethods.begin());
      }
    }
  }
  if (const YamlEntry* t = node.find("trials")) {
    if (auto v = read_whole(t->value, "'trials' of " + what, 1, kMaxTuneTrials,
                            "; refused (a study of that many trials is not a tuning run)", diags))
      tune.trials = static_cast<std::uint32_t>(*v);
  } else {
    diags.error(node.where,
                "missing required key 'trials' in " + what + " (how many configurations to try)");
  }
  if (const YamlEntry* s = node.find("seed")) {
    if (auto v = read_whole(s->value, "'seed' of " + what, 0, UINT64_MAX, "", diags))
      tune.seed = *v;
  }
  if (const YamlEntry* s = node.find("space")) {
    read_space(*s, what, tune, diags);
  } else {
    diags.error(node.where, "missing required key 'space' in " + what +
                                " (the tokens to search, e.g. 'LR: {log_uniform: [1.0e-4, "
                                "1.0e-1]}')");
  }
  if (const YamlEntry* b = node.find("budget")) read_budget(*b, what, tune, diags);
  if (const YamlEntry* m = node.find("metric")) {
    read_metric(*m, what, tune, diags);
  } else {
    diags.error(node.where, "missing required key 'metric' in " + what +
                                " (where a trial writes its result, e.g. '{file: metrics.jsonl}')");
  }
  // An unknown method is reported above; what it would need is not guessed.
  const bool needs_budget = method_ok && (method == "asha" || method == "hyperband");
  if (needs_budget && !node.find("budget"))
    diags.error(entry.key_where, what + " uses method '" + method +
                                     "', which promotes trials to larger budgets: add 'budget:' "
                                     "(e.g. '{token: EPOCHS, min: 1, max: 27, eta: 3}'), or use "
                                     "method 'random' or 'sobol'");
  if (const YamlEntry* b = node.find("brackets")) {
    if (method_ok && method != "hyperband") {
      diags.error(b->key_where, "'brackets' of " + what +
                                    " is for method 'hyperband' only; this tune uses '" + method +
                                    "'" + (node.find("method") ? "" : " (the default)"));
    } else if (auto v = read_whole(b->value, "'brackets' of " + what, 1, UINT32_MAX, "", diags)) {
      tune.brackets = static_cast<std::uint32_t>(*v);
    }
  }
  // Off unless asked for (docs/tuning.md, "Pruning": noisier early values can stop a winner).
  tune.prune_every = 0;
  if (const YamlEntry* p = node.find("prune"))
    read_prune(*p, what, method, needs_budget || !method_ok, tune, diags);
  run.tune = std::move(tune);
}

}  // namespace merlin::spec
