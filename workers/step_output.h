#pragma once
/// A step's .out and .err across its runs: the first run creates them; a run again (retry,
/// MERLIN_RESTART, redelivery after a lost worker, `merlin restart` of a failed sample)
/// appends to them after a marker line, so every attempt's output is kept.
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

#include "merlin/core/util/result.h"

namespace merlin {

/// "==== merlin: attempt 2 (retry), 2026-11-24T21:30:00Z ====\n": `attempt` is 1-based,
/// `at` in UTC. Pure.
std::string attempt_marker(std::uint32_t attempt, std::string_view reason, std::time_t at);

/// Opens `path` for a step's output, close-on-exec: created when it is not there (the first
/// run: empty, no marker, as Merlin writes it); otherwise opened for appending, with
/// `marker` written first. The caller closes the descriptor.
Result<int> open_step_output(const std::string& path, std::string_view marker);

}  // namespace merlin
