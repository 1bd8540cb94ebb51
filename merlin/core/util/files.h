#pragma once
/// Small filesystem helpers with errors as values (no exceptions), used by the workspace code.
#include <string>
#include <string_view>

#include "merlin/core/util/result.h"

namespace merlin::files {

/// mkdir -p; cheap when the directory exists (one mkdir call).
Result<void> make_dirs(const std::string& path);
/// Writes `text` to `path` (truncating).
Result<void> write(const std::string& path, std::string_view text, int mode = 0644);
/// Writes to `path.tmp` then renames: readers never see a partial file.
Result<void> write_atomic(const std::string& path, std::string_view text);
/// Creates `path`, which must not exist (nor be a symlink), readable and writable by its owner
/// only whatever the umask, writes `text` and fsyncs it; on an error nothing is left behind.
/// For secrets (passwords, app.yaml): callers rename or link the file into place.
Result<void> write_new_private(const std::string& path, std::string_view text);
/// Whole file; error names the path.
Result<std::string> read(const std::string& path);
bool exists(const std::string& path);
/// Copies a file's bytes (samples into merlin_info/), truncating `to`. A new `to` is created
/// with `mode` less the umask, as any new file: never with the source's permissions.
Result<void> copy(const std::string& from, const std::string& to, int mode = 0644);

}  // namespace merlin::files
