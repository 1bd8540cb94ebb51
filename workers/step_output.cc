#include "workers/step_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "merlin/core/util/io_error.h"

namespace merlin {

std::string attempt_marker(std::uint32_t attempt, std::string_view reason, std::time_t at) {
  std::tm utc{};
  ::gmtime_r(&at, &utc);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return "==== merlin: attempt " + std::to_string(attempt) + " (" + std::string(reason) + "), " +
         when + " ====\n";
}

Result<int> open_step_output(const std::string& path, std::string_view marker) {
  // O_EXCL tells the first run (a new file) from a later one without a separate stat.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) return fd;
  if (errno != EEXIST) return write_error(path, errno);
  fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return write_error(path, errno);
  std::string_view left = marker;
  while (!left.empty()) {
    ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return write_error(path, e);
    }
    left.remove_prefix(static_cast<std::size_t>(n));
  }
  return fd;
}

}  // namespace merlin
