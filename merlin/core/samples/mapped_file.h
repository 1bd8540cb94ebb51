#pragma once
/// A read-only memory mapping of a whole file, owned RAII-style (move-only).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "merlin/core/util/result.h"

namespace merlin::samples {

class MappedFile {
 public:
  /// Maps `path` read-only and private. An empty file gives an empty mapping (no mmap call).
  /// Errors (kBadInput) name the path: missing file, a directory, unreadable, mmap failure,
  /// and anything else that is not a regular file (a FIFO is refused without blocking).
  static Result<MappedFile> open(const std::string& path);
  /// A heap copy of `bytes`, seen through the same interface: the readers on in-memory input
  /// (the fuzz targets, tests/fuzz/). `name` stands for the path in messages. The copy is
  /// exactly `bytes.size()` long, so a read past its end is caught by AddressSanitizer.
  static MappedFile copy_of(std::string name, std::string_view bytes);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  /// The whole file. Valid while this object lives. Thread-safe (read-only).
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }
  const std::string& path() const { return path_; }

 private:
  MappedFile(std::string path, void* data, std::size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  void release();

  std::string path_;
  void* data_ = nullptr;  ///< the mapping, or owned_'s bytes
  std::size_t size_ = 0;
  std::unique_ptr<char[]> owned_;  ///< copy_of's bytes (then nothing is mapped)
};

}  // namespace merlin::samples
