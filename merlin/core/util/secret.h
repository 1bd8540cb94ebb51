#pragma once
/// Secrets made here: passwords for `merlin server`, tokens for `merlin monitor --web`.
#include <string>

#include "merlin/core/util/result.h"

namespace merlin {

/// 32 bytes of /dev/urandom as 64 lowercase hex digits: 256 bits, and only characters every
/// client, URL and Redis ACL file take without quoting. An error names /dev/urandom.
Result<std::string> random_secret();

}  // namespace merlin
