#pragma once
/// Pure format checks on single spec values (no locations, no diagnostics).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace merlin::spec {

/// The batch types a spec may name: those of the scheduler table (merlin/core/batch/scheduler.h),
/// `local` first.
std::vector<std::string> batch_types();
bool is_batch_type(std::string_view type);
/// The step keys that hold a scheduler's extra `$(LAUNCHER)` flags (`slurm:`, `flux:`, `lsf:`,
/// `pbs:`): each scheduler's flags key, once, in the table's order.
std::vector<std::string> launcher_flag_keys();

/// Exactly one `$(NAME)` token and nothing else, e.g. "$(N_NODES)" (resolved later).
bool is_single_token(std::string_view text);

/// A whole number >= `min_value` written in decimal digits, or a single `$(NAME)` token.
bool is_count(std::string_view text, long min_value);

/// HH:MM:SS, MM:SS (MM and SS below 60; hours unbounded), a number of seconds, or a single
/// `$(NAME)` token.
bool is_walltime(std::string_view text);

/// The longest study name: the workspace directory `<name>_YYYYMMDD-HHMMSS` must fit in
/// NAME_MAX (255 bytes).
inline constexpr std::size_t kMaxStudyNameBytes = 255 - 16;
/// The longest step name: its directory, and its script `<step>.restart.slurm.sh`, must fit in
/// NAME_MAX.
inline constexpr std::size_t kMaxStepNameBytes = 255 - 17;

/// Why a name cannot name a directory: the kind, to decide on, and the reason, to print.
struct DirNameProblem {
  enum class Kind {
    kNone,  ///< the name is safe; `reason` is ""
    kEmpty,
    kSlash,      ///< it contains '/'
    kNul,        ///< it contains a NUL byte
    kCharacter,  ///< it contains a character other than letters, digits, '_', '-', '.'
    kLeading,    ///< it starts with '.' or '-'
    kTooLong,    ///< it has more than the allowed bytes
  };
  Kind kind = Kind::kNone;
  std::string reason;
};

/// Why `name` cannot name a study's or step's directory (kNone when it can). A name is safe as
/// a directory and as shell text (it reaches commands through $(MERLIN_WORKSPACE)): it holds
/// only letters, digits, '_', '-' and '.', does not start with '.' or '-', and has at most
/// `max_bytes` bytes. Reasons read "it contains '/'", "it starts with '-'", "it is 300 bytes
/// long, more than 239"... (no fix; the caller says what the name is for). The offending
/// character is quoted raw: pass the message through visible_text() before printing it.
DirNameProblem dir_name_problem(std::string_view name, std::size_t max_bytes);

/// dir_name_problem()'s reason alone ("" when the name is safe).
std::string unsafe_dir_name_reason(std::string_view name, std::size_t max_bytes);

}  // namespace merlin::spec
