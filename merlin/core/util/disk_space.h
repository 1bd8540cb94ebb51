#pragma once
/// The free space of a file system, as an unprivileged process may use it (statvfs's f_bavail).
#include <cstdint>
#include <string>

#include "merlin/core/util/result.h"

namespace merlin {

/// Bytes free for this user on the file system holding `path` (a file or a directory that
/// exists); kRuntime naming `path` and the system's words when it cannot be asked.
Result<std::uint64_t> free_space(const std::string& path);

}  // namespace merlin
