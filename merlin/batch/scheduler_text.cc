#include "merlin/batch/scheduler_text.h"

#include <cctype>

#include "merlin/batch/worker_job.h"

#include "merlin/spec/field_checks.h"

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

std::optional<std::string> submitted_job_id(const std::string& batch_type, std::string_view out) {
  out = trim(out);
  if (batch_type == "lsf" || batch_type == "lsf-srun") {
    auto open = out.find("Job <");
    if (open == std::string_view::npos) return std::nullopt;
    auto close = out.find('>', open);
    if (close == std::string_view::npos) return std::nullopt;
    auto id = out.substr(open + 5, close - open - 5);
    if (!all_digits(id)) return std::nullopt;
    return std::string(id);
  }
  auto nl = out.rfind('\n');  // the id is the last line (warnings may come first)
  auto last = trim(nl == std::string_view::npos ? out : out.substr(nl + 1));
  if (batch_type == "flux") {
    if (last.empty() || last.find(' ') != std::string_view::npos) return std::nullopt;
    return std::string(last);
  }
  auto id = last.substr(0, last.find(';'));
  if (!all_digits(id)) return std::nullopt;
  return std::string(id);
}

std::optional<long> slurm_time_left(std::string_view text) {
  text = trim(text);
  auto dash = text.find('-');
  if (dash == std::string_view::npos) return spec::walltime_seconds(text);  // [[h:]m:]s
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
