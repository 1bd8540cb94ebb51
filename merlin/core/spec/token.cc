#include "merlin/core/spec/token.h"

#include <algorithm>
#include <array>

namespace merlin::spec {
namespace {

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// The optional "[2n, 4p]" after $(LAUNCHER): returns its length, 0 if absent or malformed.
std::size_t launcher_suffix(std::string_view text, std::size_t pos) {
  if (pos >= text.size() || text[pos] != '[') return 0;
  auto close = text.find(']', pos);
  if (close == std::string_view::npos) return 0;
  for (std::size_t i = pos + 1; i < close; ++i) {
    char c = text[i];
    if (!(c == ' ' || c == ',' || c == 'n' || c == 'p' || (c >= '0' && c <= '9'))) return 0;
  }
  return close - pos + 1;
}

}  // namespace

std::vector<TokenRef> find_tokens(std::string_view text) {
  std::vector<TokenRef> out;
  std::size_t i = 0;
  while ((i = text.find("$(", i)) != std::string_view::npos) {
    std::size_t j = i + 2;
    while (j < text.size() && is_name_char(text[j])) ++j;
    if (j < text.size() && text[j] == ')' && j > i + 2) {
      TokenRef t{std::string(text.substr(i + 2, j - i - 2)), i, j + 1 - i};
      if (t.name == "LAUNCHER") t.length += launcher_suffix(text, j + 1);
      i += t.length;
      out.push_back(std::move(t));
    } else {
      i += 2;
    }
  }
  return out;
}

const std::vector<ReturnCodeToken>& return_code_tokens() {
  static const std::vector<ReturnCodeToken> kCodes = {
      {"MERLIN_SUCCESS", 0},       {"MERLIN_RESTART", 100}, {"MERLIN_SOFT_FAIL", 101},
      {"MERLIN_HARD_FAIL", 102},   {"MERLIN_RETRY", 104},   {"MERLIN_STOP_WORKERS", 105},
      {"MERLIN_RAISE_ERROR", 106},
  };
  return kCodes;
}

bool is_sample_token(std::string_view name) {
  return name == "MERLIN_SAMPLE_ID" || name == "MERLIN_SAMPLE_PATH" ||
         name == "MERLIN_SAMPLE_VECTOR";
}

bool is_tune_token(std::string_view name) {
  return name == "TRIAL_DIR" || name == "MERLIN_TRIAL" || name == "MERLIN_RUNG";
}

bool is_reserved_token(std::string_view name) {
  static constexpr std::array<std::string_view, 20> kNames = {
      "SPECROOT",
      "OUTPUT_PATH",
      "MERLIN_TIMESTAMP",
      "MERLIN_WORKSPACE",
      "MERLIN_INFO",
      "WORKSPACE",
      "MERLIN_SAMPLE_ID",
      "MERLIN_SAMPLE_PATH",
      "MERLIN_SAMPLE_NAMES",
      "MERLIN_SAMPLE_VECTOR",
      "MERLIN_GLOB_PATH",
      "MERLIN_PATHS_ALL",
      "MERLIN_SPEC_ORIGINAL_TEMPLATE",
      "MERLIN_SPEC_EXECUTED_RUN",
      "MERLIN_SPEC_ARCHIVED_COPY",
      "LAUNCHER",
      "VLAUNCHER",
      "STUDY_NAME",
      "MERLIN_SCRATCH",    // an extension: the task's scratch dir (docs/staging.md)
      "MERLIN_ITERATION",  // an extension: the loop iteration, from 1 (docs/fanout.md)
  };
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  for (const auto& c : return_code_tokens())
    if (name == c.name) return true;
  return false;
}

}  // namespace merlin::spec
