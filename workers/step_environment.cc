#include "workers/step_environment.h"

#include <algorithm>

namespace merlin {

const std::vector<std::string_view>& credential_variables() {
  static const std::vector<std::string_view> names = {
      "MERLIN_BROKER_URL", "MERLIN_RESULTS_BACKEND_URL", "MERLIN_MONITOR_TOKEN"};
  return names;
}

bool is_credential_variable(std::string_view name) {
  const auto& names = credential_variables();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> step_environment(
    const std::vector<std::string_view>& ours,
    const std::vector<std::pair<std::string, std::string>>& task_env, bool pass_broker) {
  std::vector<std::string> env;
  env.reserve(ours.size() + task_env.size() + 1);
  std::string withheld;
  for (std::string_view kv : ours) {
    const std::string_view key = kv.substr(0, kv.find('='));
    if (key == kWithheldVariable) continue;  // a step's own list is not its step's
    if (!pass_broker && is_credential_variable(key)) {
      withheld += (withheld.empty() ? "" : ",") + std::string(key);
      continue;
    }
    const bool replaced = std::any_of(task_env.begin(), task_env.end(),
                                      [&](const auto& entry) { return entry.first == key; });
    if (!replaced) env.emplace_back(kv);
  }
  if (!withheld.empty()) env.push_back(std::string(kWithheldVariable) + "=" + withheld);
  for (const auto& [k, v] : task_env) env.push_back(k + "=" + v);
  return env;
}

}  // namespace merlin
