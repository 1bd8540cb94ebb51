#include "merlin/core/spec/spec_validator.h"

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/parameter_grid.h"

namespace merlin::spec {
namespace {

// A hash of first definitions: a pairwise comparison took 20 s for 10^5 steps.
void check_duplicate_steps(const StudySpec& spec, DiagnosticList& diags) {
  std::unordered_map<std::string_view, const Step*> first;
  for (const Step& s : spec.steps) {
    if (s.name.empty()) continue;
    auto [it, inserted] = first.emplace(s.name, &s);
    if (inserted) continue;
    diags.error(s.where, "duplicate step name '" + s.name + "' (first defined at line " +
                             std::to_string(it->second->where.line) + ")");
  }
}

// Parameter lists are zipped index-wise (Maestro's default), so their lengths must agree; a
// grid (`merlin.combine_parameters: cartesian`) takes any lengths, up to a bound on its size.
void check_parameter_lengths(const StudySpec& spec, DiagnosticList& diags) {
  if (spec.combine_parameters == ParameterCombination::kCartesian) {
    const std::uint64_t n = cartesian_size(spec.parameters);
    if (n > kMaxParameterCombinations)
      diags.error(spec.combine_parameters_where,
                  "the parameter grid has " +
                      (n == UINT64_MAX ? std::string("over 2^64") : std::to_string(n)) +
                      " combinations, more than " + std::to_string(kMaxParameterCombinations) +
                      "; give an ensemble that large as merlin.samples (rows of a sample file, "
                      "see `merlin sample -m grid`)");
    return;
  }
  const Parameter* first = nullptr;
  for (const auto& p : spec.parameters) {
    if (p.values.empty()) continue;
    if (first == nullptr) {
      first = &p;
    } else if (p.values.size() != first->values.size()) {
      auto count = [](std::size_t n) {
        return std::to_string(n) + (n == 1 ? " value" : " values");
      };
      diags.error(p.where, "parameter '" + p.name + "' has " + count(p.values.size()) + " but '" +
                               first->name + "' has " + count(first->values.size()) +
                               "; parameter lists are zipped, so they must have the same length");
    }
  }
}

void check_column_labels(const StudySpec& spec, DiagnosticList& diags) {
  if (!spec.samples) return;
  for (const auto& label : spec.samples->column_labels) {
    for (const auto& p : spec.parameters)
      if (p.name == label)
        diags.error(spec.samples->column_labels_where,
                    "column label '" + label + "' clashes with parameter '" + p.name + "'");
    for (const auto& v : spec.variables)
      if (v.name == label)
        diags.error(spec.samples->column_labels_where,
                    "column label '" + label + "' clashes with variable '" + v.name + "'");
  }
}

void check_workers(const StudySpec& spec, DiagnosticList& diags) {
  std::vector<std::string> names;
  for (const auto& s : spec.steps) names.push_back(s.name);
  for (const auto& w : spec.workers) {
    for (const auto& step : w.steps) {
      if (step == "all" || spec.find_step(step) != nullptr) continue;
      diags.error(w.where, "worker '" + w.name + "' lists unknown step '" + step + "'" +
                               suggestion_suffix(step, names));
    }
  }
}

}  // namespace

void validate_spec(const StudySpec& spec, std::string_view source, DiagnosticList& diags,
                   bool strict_tokens) {
  check_duplicate_steps(spec, diags);
  check_dependencies(spec, diags);
  check_loops(spec, diags);
  check_tunes(spec, source, diags);
  check_parameter_lengths(spec, diags);
  check_column_labels(spec, diags);
  check_workers(spec, diags);
  check_tokens(spec, source, diags, strict_tokens);
  check_study_name(spec, source, diags);
}

}  // namespace merlin::spec
