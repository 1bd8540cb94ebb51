#pragma once
/// The process's exit codes (documented in docs/cli.md): 0 success, 1 the study failed or a
/// server/scheduler refused, 2 bad input (spec, samples, arguments), 3 `monitor --web` or
/// `server start` could not listen on its address, 4 a full disk or quota.
#include "merlin/core/util/result.h"

namespace merlin {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;
/// `merlin monitor --web` or `merlin server start` could not listen on its address (the port
/// is taken).
inline constexpr int kExitAddressUnavailable = 3;
/// A file merlin writes (the journal, a task's script or output files) could not be written:
/// no space left on the device, or the quota reached. The workspace stays consistent; after
/// freeing space, `merlin restart` (or running the workers again) goes on.
inline constexpr int kExitNoSpace = 4;

/// The exit code for an error that ends a command: 2 bad input, 4 a full disk, else 1.
inline int exit_code_of(const Error& e) {
  if (e.code == ErrorCode::kBadInput) return kExitBadInput;
  if (e.code == ErrorCode::kNoSpace) return kExitNoSpace;
  return kExitFailed;
}

}  // namespace merlin
