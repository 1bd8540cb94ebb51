#include "workers/port_lease.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace merlin {
namespace {

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

/// A port the kernel says is free now (bound and released at once).
Result<int> free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return Error::runtime(errno_text("socket"));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    Error e = Error::runtime(errno_text("bind to a free port"));
    ::close(s);
    return e;
  }
  ::close(s);
  return static_cast<int>(ntohs(a.sin_port));
}

Result<void> own_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Error::runtime(errno_text("cannot make " + dir));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return Error::runtime(errno_text(dir));
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0)
    return Error::runtime(dir +
                          " is not a private directory of ours (a link, or another "
                          "user's, or open to others): no port lease there");
  return ok();
}

}  // namespace

Result<PortLease> PortLease::take(const std::string& lock_dir) {
  auto d = own_dir(lock_dir);
  if (!d) return d.error();
  // A port another of our tasks holds is free to the kernel until its rank 0 binds it: try
  // again. Twenty draws from ~28,000 ports all landing on held ones is not a case to handle.
  Error last = Error::runtime("no free port in 20 tries");
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto port = free_port();
    if (!port) return port.error();
    // One lock file per 1024th of the ports, so the directory stays small: two ports that
    // share a file are two tasks, and the second draws again.
    std::string path = lock_dir + "/" + std::to_string(*port % 1024);
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return Error::runtime(errno_text("cannot open " + path));
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return PortLease(*port, fd);
    last = Error::runtime(errno_text("port " + std::to_string(*port) + " is held"));
    ::close(fd);
  }
  return last;
}

PortLease::PortLease(PortLease&& other) noexcept
    : port_(other.port_), lock_fd_(std::exchange(other.lock_fd_, -1)) {}

PortLease& PortLease::operator=(PortLease&& other) noexcept {
  if (this != &other) {
    if (lock_fd_ >= 0) ::close(lock_fd_);
    port_ = other.port_;
    lock_fd_ = std::exchange(other.lock_fd_, -1);
  }
  return *this;
}

PortLease::~PortLease() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::string port_lock_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string root = tmp && *tmp ? tmp : "/tmp";
  return root + "/merlin-" + std::to_string(::geteuid()) + "-ports";
}

const std::string& this_host() {
  static const std::string host = [] {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return std::string("127.0.0.1");
    return std::string(buf);
  }();
  return host;
}

}  // namespace merlin
