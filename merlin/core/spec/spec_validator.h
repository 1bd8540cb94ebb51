#pragma once
/// Cross-reference checks on a read StudySpec: duplicate steps, `depends` targets and cycles,
/// parameter list lengths, name clashes, workers naming missing steps, unknown `$(TOKEN)`s and a
/// study name that would escape OUTPUT_PATH. Pure: reads the spec and its text, reports to diags.
#include <string_view>

#include "merlin/core/spec/diagnostic_list.h"
#include "merlin/core/spec/study_spec.h"

namespace merlin::spec {

/// Runs every check below. `source` is the spec text the locations refer to.
/// `strict_tokens`: see LoadOptions::strict_tokens.
void validate_spec(const StudySpec& spec, std::string_view source, DiagnosticList& diags,
                   bool strict_tokens = false);

/// Unknown `depends` targets (`name_*` waits on `name`) and dependency cycles, named in full
/// ("dependency cycle: a -> b -> a").
void check_dependencies(const StudySpec& spec, DiagnosticList& diags);
/// `loop` blocks: back_to names the step or an ancestor of it; loops do not overlap.
void check_loops(const StudySpec& spec, DiagnosticList& diags);

/// `tune` blocks (docs/tuning.md): space names and the budget token clash with no parameter,
/// variable, label or sample column; the command uses no sample token; a dimension or budget
/// the command never reads is a warning.
void check_tunes(const StudySpec& spec, std::string_view source, DiagnosticList& diags);

/// Unknown `$(NAME)`s in step commands, variables and labels, each at its own line:col: warnings
/// (Merlin leaves them to the shell), errors when `strict`.
void check_tokens(const StudySpec& spec, std::string_view source, DiagnosticList& diags,
                  bool strict = false);

/// `description.name`, with variables substituted, must be a plain directory name.
void check_study_name(const StudySpec& spec, std::string_view source, DiagnosticList& diags);

}  // namespace merlin::spec
