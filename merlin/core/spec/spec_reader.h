#pragma once
/// From the YAML tree to a StudySpec: shape, types, unknown keys and single-value formats.
/// Cross-references (depends, tokens, workers, parameter lengths) are the validator's job.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/spec/diagnostic_list.h"
#include "merlin/core/spec/study_spec.h"
#include "merlin/core/spec/yaml_tree.h"

namespace merlin::spec {

/// Fills `spec` from `root`, reporting every problem found to `diags`. Defaults that depend on
/// other blocks (workers, step shells) are applied later by `apply_defaults`.
void read_spec(const YamlNode& root, StudySpec& spec, DiagnosticList& diags);

// The per-block readers, one file each.
void read_env(const YamlNode& node, StudySpec& spec, DiagnosticList& diags);
/// `context` names the block in messages, e.g. "'batch'" or "'batch' of worker 'w'".
void read_batch(const YamlNode& node, const std::string& context, BatchSpec& out,
                DiagnosticList& diags);
void read_steps(const YamlNode& node, StudySpec& spec, DiagnosticList& diags);
/// `context` is "step 'sim'".
void read_run(const YamlNode& node, const std::string& context, StepRun& run,
              DiagnosticList& diags);
void read_parameters(const YamlNode& node, StudySpec& spec, DiagnosticList& diags);
void read_merlin(const YamlNode& node, StudySpec& spec, DiagnosticList& diags);

/// `samples_from` of a step's run block (samples_from_reader.cc; docs/fanout.md).
void read_samples_from(const YamlEntry& entry, const std::string& context, StepRun& run,
                       DiagnosticList& diags);
/// `loop` of a step's run block (samples_from_reader.cc; docs/fanout.md).
void read_loop(const YamlEntry& entry, const std::string& context, StepRun& run,
               DiagnosticList& diags);
/// The most trials a `tune` block may ask for.
inline constexpr std::uint32_t kMaxTuneTrials = 1'000'000;
/// `tune` of a step's run block (tune_reader.cc; docs/tuning.md): its shape and values; the
/// clashes with other names are the validator's (check_tunes).
void read_tune(const YamlEntry& entry, const std::string& context, StepRun& run,
               DiagnosticList& diags);
/// A sample column label: a token name, not reserved, not an environment name merlin or the
/// shell needs, not in `earlier` (the labels before it).
void check_column_label(const Text& label, const std::vector<std::string>& earlier,
                        DiagnosticList& diags);

/// Names usable inside `$(...)`: letters, digits, '_', '-', '.'.
bool is_token_name(const std::string& name);

}  // namespace merlin::spec
