#pragma once
/// The environment a step is spawned with: the worker's own, less the variables merlin uses
/// to carry a secret, with the task's variables replacing same-named ones (docs/security.md).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "merlin/core/broker/withheld_credentials.h"

namespace merlin {

/// The variables that carry the broker's (or another service's) credentials into merlin:
/// MERLIN_BROKER_URL and MERLIN_RESULTS_BACKEND_URL (URLs that may hold a password) and
/// MERLIN_MONITOR_TOKEN (the web page's token). merlin's own children (worker processes,
/// batch worker jobs) inherit them; a step keeps them only when it asks (`pass_broker`).
const std::vector<std::string_view>& credential_variables();

/// True when `name` is one of credential_variables().
bool is_credential_variable(std::string_view name);

/// `ours` ("NAME=value" strings, as `environ`) without the credential variables unless
/// `pass_broker` (their names then in kWithheldVariable), without the names `task_env` sets,
/// then `task_env` in its order. Pure.
std::vector<std::string> step_environment(
    const std::vector<std::string_view>& ours,
    const std::vector<std::pair<std::string, std::string>>& task_env, bool pass_broker);

}  // namespace merlin
