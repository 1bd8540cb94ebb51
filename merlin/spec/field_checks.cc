#include "merlin/spec/field_checks.h"

#include <algorithm>

#include "merlin/spec/token.h"

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

bool is_minutes_or_seconds(std::string_view s) {
  return s.size() == 2 && all_digits(s) && to_long(s) < 60;
}

}  // namespace

const std::vector<std::string>& batch_types() {
  static const std::vector<std::string> kTypes = {"local", "slurm",    "flux",
                                                  "lsf",   "lsf-srun", "pbs"};
  return kTypes;
}

bool is_batch_type(std::string_view type) {
  const auto& t = batch_types();
  return std::find(t.begin(), t.end(), type) != t.end();
}

bool is_single_token(std::string_view text) {
  auto tokens = find_tokens(text);
  return tokens.size() == 1 && tokens[0].offset == 0 && tokens[0].length == text.size();
}

bool is_count(std::string_view text, long min_value) {
  if (is_single_token(text)) return true;
  return all_digits(text) && to_long(text) >= min_value;
}

namespace {
bool walltime_part(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}
}  // namespace

bool is_walltime(std::string_view text) {
  return is_single_token(text) || walltime_seconds(text).has_value();
}

std::optional<long> walltime_seconds(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    auto colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3) return std::nullopt;
  long total = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i == 0 ? !walltime_part(parts[i]) : !is_minutes_or_seconds(parts[i])) return std::nullopt;
    long v = std::stol(std::string(parts[i]));
    total = total * 60 + v;
  }
  return total;
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
