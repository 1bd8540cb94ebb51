#pragma once
/// `~` and `$VAR` in a path, as Merlin expands them in OUTPUT_PATH and other paths
/// (Python's os.path.expanduser and os.path.expandvars).
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace merlin {

/// Looks up an environment variable; nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

/// The process environment, for EnvLookup.
EnvLookup process_environment();

/// `path` with a leading `~` (alone or before `/`) replaced by $HOME (unset: as written).
std::string expand_user(std::string_view path, const EnvLookup& env);

/// expand_user, then each `$NAME` or
/// `${NAME}` by its value; a variable that is not set, or `~user`, stays as written (as in
/// Python). Pure apart from `env`.
std::string expand_path(std::string_view path, const EnvLookup& env);

}  // namespace merlin
