#include "merlin/core/batch/scheduler_text.h"

#include <cctype>

#include "merlin/core/batch/scheduler.h"

#include "merlin/core/batch/walltime.h"

namespace merlin::batch {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

namespace {

std::string_view last_line(std::string_view out) {
  out = trim(out);
  auto nl = out.rfind('\n');
  return trim(nl == std::string_view::npos ? out : out.substr(nl + 1));
}

// The value after "key = " on its line of `qstat -f` output; "" if absent.
std::string_view qstat_value(std::string_view text, std::string_view key) {
  auto at = text.find(key);
  while (at != std::string_view::npos) {
    auto rest = text.substr(at + key.size());
    auto line = rest.substr(0, rest.find('\n'));
    auto eq = line.find('=');
    if (eq != std::string_view::npos && trim(line.substr(0, eq)).empty())
      return trim(line.substr(eq + 1));
    at = text.find(key, at + 1);
  }
  return {};
}

}  // namespace

std::optional<std::string> submitted_job_id(const std::string& batch_type, std::string_view out) {
  const auto* s = find_scheduler(batch_type);
  if (!s || !s->has_jobs()) return std::nullopt;
  return s->job_id(out);
}

std::optional<std::string> slurm_job_id(std::string_view out) {
  auto last = last_line(out);
  auto id = last.substr(0, last.find(';'));
  if (!all_digits(id)) return std::nullopt;
  return std::string(id);
}

std::optional<std::string> flux_job_id(std::string_view out) {
  auto last = last_line(out);
  if (last.empty() || last.find(' ') != std::string_view::npos) return std::nullopt;
  return std::string(last);
}

std::optional<std::string> lsf_job_id(std::string_view out) {
  out = trim(out);
  auto open = out.find("Job <");
  if (open == std::string_view::npos) return std::nullopt;
  auto close = out.find('>', open);
  if (close == std::string_view::npos) return std::nullopt;
  auto id = out.substr(open + 5, close - open - 5);
  if (!all_digits(id)) return std::nullopt;
  return std::string(id);
}

std::optional<std::string> pbs_job_id(std::string_view out) {
  auto last = last_line(out);  // "1234.server", "1234[].server" for an array
  if (last.empty() || last.find(' ') != std::string_view::npos ||
      !std::isdigit(static_cast<unsigned char>(last.front())))
    return std::nullopt;
  return std::string(last);
}

std::optional<long> pbs_time_left(std::string_view text) {
  auto remaining = qstat_value(text, "Walltime.Remaining");
  if (all_digits(remaining) && remaining.size() < 12) return std::stol(std::string(remaining));
  auto limit = walltime_seconds(qstat_value(text, "Resource_List.walltime"));
  if (!limit) return std::nullopt;
  auto used = walltime_seconds(qstat_value(text, "resources_used.walltime"));
  long left = *limit - used.value_or(0);
  return left > 0 ? left : 0;
}

std::optional<long> slurm_time_left(std::string_view text) {
  text = trim(text);
  auto dash = text.find('-');
  if (dash == std::string_view::npos) return walltime_seconds(text);  // [[h:]m:]s
  // days-hours[:minutes[:seconds]]
  auto d = text.substr(0, dash);
  if (!all_digits(d) || d.size() > 6) return std::nullopt;
  long total = std::stol(std::string(d)) * 24;
  text = text.substr(dash + 1);
  int parts = 0;
  while (true) {
    auto colon = text.find(':');
    auto part = text.substr(0, colon);
    if (!all_digits(part) || part.size() > 2 || ++parts > 3) return std::nullopt;
    total = total * (parts == 1 ? 1 : 60) + std::stol(std::string(part));
    if (colon == std::string_view::npos) break;
    text = text.substr(colon + 1);
  }
  for (; parts < 3; ++parts) total *= 60;
  return total;
}

}  // namespace merlin::batch
