#include "merlin/core/study/step_text.h"

namespace merlin {

std::string merlin_step_text(std::string_view text) {
  // Python's splitlines(): a final newline ends the last line instead of starting another.
  std::string_view body = text;
  if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  if (body.find('\n') == std::string_view::npos) {
    constexpr std::string_view kBlank = " \t";
    auto first = body.find_first_not_of(kBlank);
    if (first == std::string_view::npos) return {};
    return std::string(body.substr(first, body.find_last_not_of(kBlank) - first + 1));
  }
  while (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  return std::string(body) + "\n";
}

namespace {

// Merlin's `^(?!#).*MERLIN_<NAME>=\d+`, multi-line.
bool sets_count(std::string_view cmd, std::string_view name) {
  std::string key = "MERLIN_" + std::string(name) + "=";
  std::size_t start = 0;
  while (start <= cmd.size()) {
    std::size_t end = cmd.find('\n', start);
    std::string_view line =
        cmd.substr(start, end == std::string_view::npos ? cmd.npos : end - start);
    if (line.empty() || line.front() != '#') {
      for (auto at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
        std::size_t digit = at + key.size();
        if (digit < line.size() && line[digit] >= '0' && line[digit] <= '9') return true;
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return false;
}

}  // namespace

std::string with_vlauncher_lines(std::string_view cmd, const VlauncherCounts& counts,
                                 std::string_view shell) {
  if (cmd.find("$(VLAUNCHER)") == std::string_view::npos) return std::string(cmd);
  const std::string set = shell.find("csh") != std::string_view::npos ? "set " : "";
  struct Count {
    const char* name;
    const std::string& value;
    const char* fallback;
  };
  // Merlin prepends one line per count in the order NODES, PROCS, CORES, GPUS, so they read
  // GPUS first.
  const Count order[] = {{"GPUS", counts.gpus, "0"},
                         {"CORES", counts.cores_per_task, "1"},
                         {"PROCS", counts.procs, "1"},
                         {"NODES", counts.nodes, "1"}};
  std::string head;
  for (const auto& c : order)
    if (!sets_count(cmd, c.name))
      head += set + "MERLIN_" + c.name + "=" + (c.value.empty() ? c.fallback : c.value) + "\n";
  return head + std::string(cmd);
}

}  // namespace merlin
