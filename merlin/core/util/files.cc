#include "merlin/core/util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "merlin/core/util/io_error.h"

namespace merlin::files {
namespace {
Error io_error(const std::string& what, const std::string& path) {
  return merlin::io_error(what, path, errno);
}
}  // namespace

Result<void> make_dirs(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return ok();
  if (errno != ENOENT) return io_error("cannot create directory", path);
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return io_error("cannot create directory", path);
  auto parent = make_dirs(path.substr(0, slash));
  if (!parent) return parent;
  if (::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return ok();
  return io_error("cannot create directory", path);
}

Result<void> write(const std::string& path, std::string_view text, int mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return io_error("cannot write", path);
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return io_error("cannot write", path);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  // A quota may only be enforced when the data reaches the server (NFS): close says so.
  if (::close(fd) != 0) return io_error("cannot write", path);
  return ok();
}

Result<void> write_atomic(const std::string& path, std::string_view text) {
  std::string tmp = path + ".tmp";
  auto w = write(tmp, text);
  if (!w) return w;
  if (::rename(tmp.c_str(), path.c_str()) != 0) return io_error("cannot rename onto", path);
  return ok();
}

Result<void> write_new_private(const std::string& path, std::string_view text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return io_error("cannot write", path);
  auto failed = [&] {
    auto e = io_error("cannot write", path);
    ::close(fd);
    ::unlink(path.c_str());
    return e;
  };
  if (::fchmod(fd, 0600) != 0) return failed();
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed();
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) return failed();
  if (::close(fd) != 0) {
    auto e = io_error("cannot write", path);
    ::unlink(path.c_str());
    return e;
  }
  return ok();
}

Result<std::string> read(const std::string& path) {
  // open(2) rather than an ifstream: libstdc++ cannot ask for O_CLOEXEC, and a step spawned
  // by another thread meanwhile must not inherit the descriptor.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::bad_input("cannot read " + path + ": " + std::strerror(errno));
  std::string text;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return Error::bad_input("cannot read " + path + ": " + std::strerror(e));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

Result<void> copy(const std::string& from, const std::string& to, int mode) {
  // Not std::filesystem::copy_file: it gives the copy the source's permissions, so a
  // world-writable samples file made a world-writable copy whatever the umask.
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (in < 0) return io_error("cannot copy", from);
  int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (out < 0) {
    Error e = io_error("cannot copy " + from + " to", to);
    ::close(in);
    return e;
  }
  std::optional<Error> error;
  char buf[1 << 16];
  while (!error) {
    ssize_t n = ::read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = io_error("cannot read", from);
    if (n <= 0) break;
    for (ssize_t done = 0; done < n && !error;) {
      ssize_t w = ::write(out, buf + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) error = io_error("cannot write", to);
      if (w > 0) done += w;
    }
  }
  ::close(in);
  if (::close(out) != 0 && !error) error = io_error("cannot write", to);
  if (error) return *error;
  return ok();
}

}  // namespace merlin::files
