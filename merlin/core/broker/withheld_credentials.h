#pragma once
/// The one name both sides of a withheld credential agree on: the worker that spawns a step
/// without the broker's credentials (workers/step_environment.h) and a `merlin` command run by
/// that step, which says why it has no broker (cli/broker_config.h).
#include <string_view>

namespace merlin {

/// Set in a step's environment to the names (comma-separated, no values) of the credential
/// variables its worker had and the step was not given, so that a `merlin` command the step
/// runs can say why it has no broker.
inline constexpr std::string_view kWithheldVariable = "MERLIN_CREDENTIALS_WITHHELD";

}  // namespace merlin
