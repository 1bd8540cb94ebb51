#include "merlin/core/spec/field_checks.h"

#include <algorithm>

#include "merlin/core/batch/scheduler.h"
#include "merlin/core/batch/walltime.h"
#include "merlin/core/spec/token.h"

namespace merlin::spec {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 12 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

long to_long(std::string_view s) {
  long v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

}  // namespace

std::vector<std::string> batch_types() {
  std::vector<std::string> out;
  for (const auto* s : batch::schedulers()) out.emplace_back(s->type());
  return out;
}

bool is_batch_type(std::string_view type) { return batch::find_scheduler(type) != nullptr; }

std::vector<std::string> launcher_flag_keys() {
  std::vector<std::string> out;
  for (const auto* s : batch::schedulers()) {
    std::string key(s->flags_key());
    if (s->has_jobs() && std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  }
  return out;
}

bool is_single_token(std::string_view text) {
  auto tokens = find_tokens(text);
  return tokens.size() == 1 && tokens[0].offset == 0 && tokens[0].length == text.size();
}

bool is_count(std::string_view text, long min_value) {
  if (is_single_token(text)) return true;
  return all_digits(text) && to_long(text) >= min_value;
}

bool is_walltime(std::string_view text) {
  return is_single_token(text) || batch::walltime_seconds(text).has_value();
}

DirNameProblem dir_name_problem(std::string_view name, std::size_t max_bytes) {
  using Kind = DirNameProblem::Kind;
  if (name.empty()) return {Kind::kEmpty, "it is empty"};
  if (name.find('/') != std::string_view::npos) return {Kind::kSlash, "it contains '/'"};
  if (name.find('\0') != std::string_view::npos) return {Kind::kNul, "it contains a NUL byte"};
  for (char c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-' || c == '.';
    if (!plain)
      return {Kind::kCharacter, "it contains '" + std::string(1, c) +
                                    "' (only letters, digits, '_', '-' and '.' are allowed)"};
  }
  if (name.front() == '.' || name.front() == '-')
    return {Kind::kLeading, "it starts with '" + std::string(1, name.front()) + "'"};
  if (name.size() > max_bytes)
    return {Kind::kTooLong, "it is " + std::to_string(name.size()) + " bytes long, more than " +
                                std::to_string(max_bytes)};
  return {};
}

std::string unsafe_dir_name_reason(std::string_view name, std::size_t max_bytes) {
  return dir_name_problem(name, max_bytes).reason;
}

}  // namespace merlin::spec
