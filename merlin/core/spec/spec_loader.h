#pragma once
/// Reading a study spec file into a StudySpec, with Merlin's defaults, `--vars` overrides and
/// full validation. All problems are collected and reported at once.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "merlin/core/spec/source_location.h"
#include "merlin/core/spec/study_spec.h"
#include "merlin/core/util/result.h"

namespace merlin::spec {

/// One problem (or warning) found in a spec.
struct Diagnostic {
  std::string file;
  SourceLocation where;
  std::string
      message;  ///< e.g. "unknown key 'procs_per_task' in step 'sim' (did you mean 'procs'?)"
  bool is_warning = false;
  /// "file:line:col: message" (or "file: message" when the location is unknown);
  /// warnings read "file:line:col: warning: message". The message is passed through
  /// visible_text(): control characters, backslashes and non-ASCII bytes are escaped.
  std::string str() const;
};

struct LoadOptions {
  /// `--vars K=V` overrides, applied to `env.variables`; an unknown K is an error.
  std::vector<std::pair<std::string, std::string>> vars;
  /// Samples file override (`--samplesfile`); only recorded here, read by samples/.
  std::string samples_file;
  std::size_t max_file_bytes = 16u << 20;  ///< larger spec files are refused
  std::size_t max_nodes = 1000000;         ///< YAML nodes in all, aliases expanded (see YamlLimits)
  std::size_t max_alias_nodes = 200000;    ///< YAML nodes added by aliases (anti "billion laughs")
  /// `validate --strict`: a `$(NAME)` that nothing defines is an error. Otherwise a warning, and
  /// it stays in the command for the shell, as Merlin leaves it.
  bool strict_tokens = false;
};

struct LoadedSpec {
  StudySpec spec;
  std::vector<Diagnostic> warnings;
};

/// Loads and validates the spec at `path`. On any problem returns Error{kBadInput} whose message
/// is every Diagnostic's `str()`, one per line, in file order.
Result<LoadedSpec> load_spec(const std::string& path, const LoadOptions& options = {});

/// Same, from text (tests). `file_name` is used in messages; `spec_dir` is $(SPECROOT).
Result<LoadedSpec> parse_spec(std::string_view text, const std::string& file_name,
                              const LoadOptions& options = {});

/// The spec re-emitted as YAML with the `--vars` overrides written into `env.variables`
/// (Merlin's `<name>.partial.yaml`). `source_text` must be a spec that `parse_spec` accepted.
Result<std::string> emit_with_overrides(
    std::string_view source_text, const std::vector<std::pair<std::string, std::string>>& vars);

}  // namespace merlin::spec
