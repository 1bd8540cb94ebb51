#pragma once
/// Errors of file writes that say which file and why, and tell a full disk from the rest:
/// ENOSPC or EDQUOT give ErrorCode::kNoSpace (exit 4, docs/cli.md), which makes a worker stop
/// taking tasks and hand its task back instead of recording a failure (docs/user-guide.md).
#include <string>

#include "merlin/core/util/result.h"

namespace merlin {

/// True for the errno values of a full file system or a quota reached (ENOSPC, EDQUOT).
bool is_no_space(int err);

/// "<what> <path>: <strerror(err)>"; ErrorCode::kNoSpace when is_no_space(err), else kRuntime.
Error io_error(const std::string& what, const std::string& path, int err);

/// io_error("cannot write", path, err): "cannot write <path>: No space left on device".
Error write_error(const std::string& path, int err);

}  // namespace merlin
