#include "workers/trial_result.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>

namespace merlin {
namespace {

// The last `tail` bytes of the regular file at `path` (not followed through a link), and its
// size; nullopt (errno set) when it cannot be opened.
std::optional<std::string> read_tail(const std::string& path, off_t tail, long long& size) {
  size = -1;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    size = st.st_size;
    const off_t from = st.st_size > tail ? st.st_size - tail : 0;
    text.resize(static_cast<std::size_t>(st.st_size - from));
    ssize_t n = ::pread(fd, text.data(), text.size(), from);
    text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    // Cut in the middle of a line: the partial first line is not one of the trial's.
    if (from > 0) text.erase(0, text.find('\n') == std::string::npos ? text.size()
                                                                    : text.find('\n') + 1);
  }
  ::close(fd);
  return text;
}

}  // namespace

double read_trial_result(const std::string& path, const std::string& key, std::string& why) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  long long size = 0;
  auto text = read_tail(path, 64 * 1024, size);
  if (!text) {
    why = "cannot read " + path + ": " + std::strerror(errno);
    return kNone;
  }
  auto v = data::last_metric(*text, key);
  if (!v) {
    why = path + " has no line with a number for '" + key + "'";
    return kNone;
  }
  return *v;
}

std::vector<data::MetricPoint> read_trial_curve(const std::string& path, const std::string& key,
                                                long long& size) {
  auto text = read_tail(path, 256 * 1024, size);
  if (!text) return {};
  return data::metric_curve(*text, key);
}

}  // namespace merlin
