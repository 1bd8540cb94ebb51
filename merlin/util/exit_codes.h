#pragma once
/// The process's exit codes (documented in docs/cli.md): 0 success, 1 the study failed or a
/// server/scheduler refused, 2 bad input (spec, samples, arguments).

namespace merlin {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;

}  // namespace merlin
