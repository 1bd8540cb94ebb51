#include "workers/trial_result.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "merlin/core/data/output_reader.h"

namespace merlin {
namespace {

constexpr off_t kTail = 64 * 1024;

}  // namespace

double read_trial_result(const std::string& path, const std::string& key, std::string& why) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    why = "cannot read " + path + ": " + std::strerror(errno);
    return kNone;
  }
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const off_t from = st.st_size > kTail ? st.st_size - kTail : 0;
    text.resize(static_cast<std::size_t>(st.st_size - from));
    ssize_t n = ::pread(fd, text.data(), text.size(), from);
    text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  }
  ::close(fd);
  auto v = data::last_metric(text, key);
  if (!v) {
    why = path + " has no line with a number for '" + key + "'";
    return kNone;
  }
  return *v;
}

}  // namespace merlin
