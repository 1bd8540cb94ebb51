#pragma once
/// Counts in messages: "1 message", "2 messages".
#include <cstdint>
#include <string>
#include <string_view>

namespace merlin {

/// `n` and the noun, singular for exactly 1: counted(1, "study", "studies") is "1 study".
inline std::string counted(std::uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace merlin
