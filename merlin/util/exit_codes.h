#pragma once
/// The process's exit codes (documented in docs/cli.md): 0 success, 1 the study failed or a
/// server/scheduler refused, 2 bad input (spec, samples, arguments), 3 `monitor --web` or
/// `server start` could not listen on its address.

namespace merlin {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;
/// `merlin monitor --web` or `merlin server start` could not listen on its address (the port
/// is taken).
inline constexpr int kExitAddressUnavailable = 3;

}  // namespace merlin
