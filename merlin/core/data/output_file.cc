#include "merlin/core/data/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace merlin::data {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

OutputFileRead malformed(std::string why) { return {SampleStatus::kMalformed, std::move(why)}; }

OutputFileRead from_errno(int err) {
  if (err == ENOENT) return {SampleStatus::kMissing, "no such file"};
  return malformed(std::strerror(err));
}

// A reason when `st` is not a regular file of at most `max_bytes`; "" when it is.
std::string refusal(const struct stat& st, std::uint64_t max_bytes) {
  if (!S_ISREG(st.st_mode))
    return std::string("not a regular file (") + kind_of(st.st_mode) +
           "); merlin collect reads only regular files";
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    return std::to_string(st.st_size) + " bytes, more than --max-output-size " +
           std::to_string(max_bytes) + " bytes (raise it to read this file)";
  return "";
}

}  // namespace

OutputFileRead read_output_file(const std::string& path, std::uint64_t max_bytes,
                                std::string& out) {
  return read_output_file_at(AT_FDCWD, path, max_bytes, out);
}

OutputFileRead read_output_file_at(int dir_fd, const std::string& path, std::uint64_t max_bytes,
                                   std::string& out) {
  out.clear();
  // Looked at before it is opened: opening a device can do things (a tape rewinds).
  struct stat st {};
  if (::fstatat(dir_fd, path.c_str(), &st, 0) != 0) return from_errno(errno);
  if (auto why = refusal(st, max_bytes); !why.empty()) return malformed(why);
  // O_NONBLOCK: a FIFO swapped in since the stat cannot block the open; fstat refuses it.
  const int fd = ::openat(dir_fd, path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return from_errno(errno);
  OutputFileRead result;
  if (::fstat(fd, &st) != 0) {
    result = from_errno(errno);
  } else if (auto why = refusal(st, max_bytes); !why.empty()) {
    result = malformed(why);
  } else {
    // Room for one byte more than the file has: a read that stops short of filling it has
    // reached the end, so a whole file takes one read, not one more to see the end.
    const std::uint64_t expected = static_cast<std::uint64_t>(st.st_size);
    // One byte past the cap tells a file that grew past it.
    const std::uint64_t limit = max_bytes == UINT64_MAX ? max_bytes : max_bytes + 1;
    out.resize(static_cast<std::size_t>(std::min(expected + 1, limit)));
    std::size_t have = 0;
    for (;;) {
      if (have == out.size()) {  // it grew while it was read: make room, up to the cap
        if (have >= limit) {
          result = malformed("more than --max-output-size " + std::to_string(max_bytes) +
                             " bytes (it grew while it was read; raise the cap to read it)");
          break;
        }
        out.resize(static_cast<std::size_t>(
            std::min<std::uint64_t>(std::max<std::uint64_t>(2 * have, 65536), limit)));
      }
      const std::size_t asked = out.size() - have;
      const ssize_t n = ::read(fd, out.data() + have, asked);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        result = from_errno(errno);
        break;
      }
      if (n == 0) break;
      have += static_cast<std::size_t>(n);
      if (static_cast<std::size_t>(n) < asked && have >= expected) break;  // the end
    }
    out.resize(have);
  }
  ::close(fd);
  if (result.status != SampleStatus::kOk) out.clear();
  return result;
}

HeldDirectory::~HeldDirectory() {
  if (fd_ >= 0) ::close(fd_);
}

int HeldDirectory::open(const std::string& dir) {
  if (fd_ >= 0 && dir == dir_) return fd_;
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  dir_ = fd_ >= 0 ? dir : std::string();
  return fd_;
}

}  // namespace merlin::data
