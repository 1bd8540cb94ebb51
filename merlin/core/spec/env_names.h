#pragma once
/// Which sample column labels may become environment variables of a step.
///
/// Every task of a sampled step runs with its sample's values exported under their column
/// labels. A label that names a variable the shell, the dynamic loader, the C library, an
/// interpreter, MPI/OpenMP/the batch system or merlin itself gives a meaning to would let a
/// value in the samples file change what the step runs (`PATH`, `BASH_ENV`, `LD_PRELOAD`...),
/// whatever the value's characters. Such labels are refused when the spec is validated.
#include <optional>
#include <string>
#include <string_view>

namespace merlin::spec {

/// True for `[A-Za-z_][A-Za-z0-9_]*`: a name the shell can read as `$NAME`.
bool is_shell_identifier(std::string_view name);

/// Why `name` must not be set in a step's environment.
struct EnvNameConflict {
  std::string pattern;  ///< the reserved name ("PATH") or family ("LD_*") it matches
  std::string meaning;  ///< e.g. "read by the dynamic loader", "set by merlin for every task"
};

/// The reserved name or family `name` falls in, or nullopt when exporting it is harmless.
/// Names are compared case-sensitively (the environment is): `PATH` is reserved, `path` is not.
/// Pure; thread-safe.
std::optional<EnvNameConflict> env_name_conflict(std::string_view name);

/// True when a column label is exported to the steps: a shell identifier that is not reserved.
bool is_exported_label(std::string_view label);

/// "would set the step's environment variable PATH, which is read by the shell", or for a
/// family "...LD_FOO; LD_* variables are read by the dynamic loader": the middle of the
/// validation message for a conflicting label.
std::string describe_env_conflict(std::string_view name, const EnvNameConflict& conflict);

}  // namespace merlin::spec
