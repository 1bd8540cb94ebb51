#pragma once
/// Who may read the monitor's pages and which files `/err/...` may serve: pure decisions
/// (but the token's random bytes and the path's resolution on disk), unit-tested.
#include <cstddef>
#include <cstdint>
#include <string>

#include "adapters/web/http_server.h"
#include "merlin/core/util/result.h"

namespace merlin::web {

/// A new access token: 32 random bytes from /dev/urandom as 64 hex digits.
Result<std::string> generate_token();

/// True for an address only this host can reach: 127.0.0.0/8, ::1, "localhost".
bool is_loopback(const std::string& address);

/// True when `token` is empty (no token required) or the request carries it, as the query
/// parameter `token` or an `Authorization: Bearer <token>` header (the scheme in any case, as
/// RFC 7235 has it, then one or more spaces). Compared in constant time.
bool token_accepted(const HttpRequest& request, const std::string& token);

/// The file `relative` names inside `workspace`, if it may be served: a relative path with no
/// `..` component, naming a regular file whose name ends in `.err`, which (symbolic links
/// resolved) is still inside the workspace (resolved too). kBadInput saying why otherwise;
/// kRuntime when the file does not exist.
Result<std::string> err_file_in(const std::string& workspace, const std::string& relative);

/// The last `max_bytes` of `path` (from the start of a line when it was cut).
Result<std::string> file_tail(const std::string& path, std::size_t max_bytes);

/// The last `max_bytes` of the `length` bytes at `offset` of `path` (a lean workspace's log
/// range), from the start of a line when it was cut. kRuntime when the file is shorter.
Result<std::string> range_tail(const std::string& path, std::uint64_t offset, std::uint64_t length,
                               std::size_t max_bytes);

}  // namespace merlin::web
