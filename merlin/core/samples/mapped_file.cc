#include "merlin/core/samples/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

namespace merlin::samples {
namespace {

// Closes the descriptor on every path out of open(): the mapping outlives it, so a table
// holds no fd (a study may open several sample files; fds are the scarcer resource).
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

Error io_error(const std::string& path, const char* what, int err) {
  return Error::bad_input("cannot " + std::string(what) + " sample file '" + path +
                          "': " + std::strerror(err));
}

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

Result<MappedFile> MappedFile::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever; the
  // fstat below then refuses it. It changes nothing for regular files.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return io_error(path, "open", errno);
  FdCloser closer(fd);

  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error(path, "stat", errno);
  if (S_ISDIR(st.st_mode)) {
    return Error::bad_input("sample file '" + path + "' is a directory, expected a file");
  }
  if (!S_ISREG(st.st_mode)) {
    return Error::bad_input("sample file '" + path + "' is " + kind_of(st.st_mode) +
                            ", expected a regular file");
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) return MappedFile(path, nullptr, 0);

  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED) return io_error(path, "map", errno);
  return MappedFile(path, data, size);
}

MappedFile MappedFile::copy_of(std::string name, std::string_view bytes) {
  MappedFile file(std::move(name), nullptr, 0);
  if (bytes.empty()) return file;
  file.owned_ = std::make_unique_for_overwrite<char[]>(bytes.size());
  std::memcpy(file.owned_.get(), bytes.data(), bytes.size());
  file.data_ = file.owned_.get();
  file.size_ = bytes.size();
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      owned_(std::move(other.owned_)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    owned_ = std::move(other.owned_);
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() {
  if (data_ != nullptr && !owned_) ::munmap(data_, size_);
  owned_.reset();
  data_ = nullptr;
  size_ = 0;
}

}  // namespace merlin::samples
