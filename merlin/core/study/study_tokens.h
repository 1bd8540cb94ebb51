#pragma once
/// The study-level token values: env variables and labels (each resolved against the earlier
/// ones), SPECROOT, OUTPUT_PATH, MERLIN_TIMESTAMP, MERLIN_WORKSPACE, MERLIN_INFO, the spec copies
/// in merlin_info/, and the return codes. Computed once per `merlin run`.
#include <map>
#include <string>

#include "merlin/core/spec/study_spec.h"
#include "merlin/core/util/path_expand.h"
#include "merlin/core/util/result.h"

namespace merlin {

struct StudyTokenOptions {
  std::string timestamp;  ///< YYYYMMDD-HHMMSS of `merlin run` (injected: no clock in here)
  std::string cwd;        ///< where relative OUTPUT_PATHs start
  /// An existing workspace to use instead of OUTPUT_PATH/<name>_<timestamp> (restart).
  std::string workspace_override;
  /// Restart/status load the spec copy in merlin_info/; these keep the original's
  /// $(SPECROOT) and file stem.
  std::string spec_root_override;
  std::string spec_stem_override;
  /// Expands `~` and `$VAR` in OUTPUT_PATH, as Merlin does; none: left as written.
  EnvLookup environment = nullptr;
};

struct StudyTokens {
  std::string study_name;                     ///< description.name, substituted
  std::string spec_root;                      ///< absolute
  std::string output_path;                    ///< absolute
  std::string workspace;                      ///< absolute: output_path/<name>_<timestamp>
  std::string info_dir;                       ///< workspace/merlin_info
  std::string spec_stem;                      ///< spec file name without .yaml
  std::map<std::string, std::string> values;  ///< every study-level token by name

  std::string substitute(std::string_view text) const;
};

/// Resolves the tokens. Errors (kBadInput): a study name that is empty or would leave
/// OUTPUT_PATH (contains '/', is '.' or '..'), or holds characters unsafe in a file name.
Result<StudyTokens> resolve_study_tokens(const spec::StudySpec& spec,
                                         const StudyTokenOptions& options);

/// "YYYYMMDD-HHMMSS" for the local time `t` (seconds since the epoch).
std::string format_timestamp(long long t);

}  // namespace merlin
