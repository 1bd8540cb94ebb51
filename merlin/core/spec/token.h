#pragma once
/// `$(NAME)` references inside spec text: finding them, and the names Merlin reserves.
#include <string>
#include <string_view>
#include <vector>

namespace merlin::spec {

/// One `$(NAME)` occurrence: `offset` is the index of '$' in the text, `length` covers "$(...)".
/// `name` is what is between the parentheses (e.g. "X2.label", "step_1.workspace", "LAUNCHER").
struct TokenRef {
  std::string name;
  std::size_t offset = 0;
  std::size_t length = 0;
};

/// All `$(NAME)` references in `text`, in order. A name is [A-Za-z0-9_.-]+; anything else between
/// "$(" and ")" (e.g. shell `$(date)` with a space, or `$(( 1 + 2 ))`) is not a token and is left
/// alone. `$(LAUNCHER)[2n, 4p]` is returned as name "LAUNCHER" with the bracket part included in
/// `length`.
std::vector<TokenRef> find_tokens(std::string_view text);

/// True for names Merlin defines itself (SPECROOT, MERLIN_*, LAUNCHER, WORKSPACE, return codes...).
bool is_reserved_token(std::string_view name);

/// Tokens whose presence in `cmd`/`restart` makes a step run once per sample
/// (MERLIN_SAMPLE_ID, MERLIN_SAMPLE_PATH, MERLIN_SAMPLE_VECTOR; column labels are checked apart).
bool is_sample_token(std::string_view name);

/// The tokens a `tune` step's command may use besides its space's names and its budget token
/// (TRIAL_DIR, MERLIN_TRIAL, MERLIN_RUNG; docs/tuning.md). Not reserved in other steps (there
/// they are unknown tokens); a space name or budget token may not take them.
bool is_tune_token(std::string_view name);

/// The return-code tokens and their values, e.g. ("MERLIN_RESTART", 100).
struct ReturnCodeToken {
  const char* name;
  int value;
};
const std::vector<ReturnCodeToken>& return_code_tokens();

}  // namespace merlin::spec
