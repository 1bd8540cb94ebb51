#pragma once
/// Pure format checks on single spec values (no locations, no diagnostics).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace merlin::spec {

/// The batch types a spec may name: local, slurm, flux, lsf, lsf-srun, pbs.
const std::vector<std::string>& batch_types();
bool is_batch_type(std::string_view type);

/// Exactly one `$(NAME)` token and nothing else, e.g. "$(N_NODES)" (resolved later).
bool is_single_token(std::string_view text);

/// A whole number >= `min_value` written in decimal digits, or a single `$(NAME)` token.
bool is_count(std::string_view text, long min_value);

/// HH:MM:SS, MM:SS (MM and SS below 60; hours unbounded), a number of seconds, or a single
/// `$(NAME)` token.
bool is_walltime(std::string_view text);
/// "HH:MM:SS", "MM:SS" or seconds → seconds; nullopt if malformed (or still a token).
std::optional<long> walltime_seconds(std::string_view text);

/// Why `name` cannot be a directory name under OUTPUT_PATH ("" when it can): empty, '.' or
/// '..', contains '/' or a NUL byte.
std::string unsafe_dir_name_reason(std::string_view name);

}  // namespace merlin::spec
