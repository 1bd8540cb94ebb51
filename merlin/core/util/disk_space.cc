#include "merlin/core/util/disk_space.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>

namespace merlin {

Result<std::uint64_t> free_space(const std::string& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0)
    return Error::runtime("cannot tell the free space of " + path + ": " + std::strerror(errno));
  return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

}  // namespace merlin
