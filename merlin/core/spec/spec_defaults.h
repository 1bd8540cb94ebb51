#pragma once
/// Merlin's defaults that depend on several blocks, and the `--vars` overrides.
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/spec/diagnostic_list.h"
#include "merlin/core/spec/study_spec.h"

namespace merlin::spec {

/// Sets `env.variables` K to V for each `--vars K=V` (or the `env.labels` entry when only a label
/// has that name). An unknown K is an error.
void apply_overrides(const std::vector<std::pair<std::string, std::string>>& vars, StudySpec& spec,
                     DiagnosticList& diags);

/// A parameter grid (`merlin.combine_parameters: cartesian`) → zipped lists. Workers: none declared → one `default_worker` for every step; `steps: [all]` → every step;
/// steps no worker lists → added to `default_worker`, with a warning. Step shells default to the
/// batch shell.
void apply_defaults(StudySpec& spec, DiagnosticList& diags);

}  // namespace merlin::spec
