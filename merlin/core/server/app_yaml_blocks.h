#pragma once
/// The app.yaml that `merlin server start` points at its server: the `broker` and
/// `results_backend` blocks Merlin's `server start` writes, put into an existing file as text,
/// so every other key, comment and the order of the file stay as the user wrote them.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace merlin::server {

/// Merlin's blocks for a Redis server: `name: redis`, `username: default`, `password:` the
/// password file's path, `server`, `port`; the same for `broker` and `results_backend`.
/// Returns (key, block text) pairs, each block ending with a newline.
std::vector<std::pair<std::string, std::string>> server_blocks(const std::string& host, int port,
                                                               const std::string& pass_file);

/// `yaml` with each top-level block named in `blocks` replaced: a block is its key's line at
/// column 0 (`broker:`) and the lines after it that are indented or blank (trailing blank
/// lines are left outside it); a line at column 0, comment or not, ends it. Later blocks of
/// the same key are removed; a key the file lacks is appended at its end.
std::string replace_top_level_blocks(
    std::string_view yaml, const std::vector<std::pair<std::string, std::string>>& blocks);

}  // namespace merlin::server
