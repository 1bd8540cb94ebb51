#pragma once
/// Walltimes as specs and schedulers write them.
#include <optional>
#include <string_view>

namespace merlin::batch {

/// "HH:MM:SS", "MM:SS" or seconds → seconds (hours unbounded, up to 9 digits; minutes and
/// seconds after a colon two digits below 60); nullopt if malformed (or still a `$(TOKEN)`).
std::optional<long> walltime_seconds(std::string_view text);

}  // namespace merlin::batch
