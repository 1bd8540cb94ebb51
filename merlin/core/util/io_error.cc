#include "merlin/core/util/io_error.h"

#include <cerrno>
#include <cstring>

namespace merlin {

bool is_no_space(int err) { return err == ENOSPC || err == EDQUOT; }

Error io_error(const std::string& what, const std::string& path, int err) {
  Error e = Error::runtime(what + " " + path + ": " + std::strerror(err));
  if (is_no_space(err)) e.code = ErrorCode::kNoSpace;
  return e;
}

Error write_error(const std::string& path, int err) { return io_error("cannot write", path, err); }

}  // namespace merlin
