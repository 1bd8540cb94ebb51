#pragma once
// Test helpers: a scratch directory and byte-exact `.npy` fixtures built in C++.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace merlin::samples::testing {

/// A fresh directory under the system temp dir, removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "merlin_samples_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The header numpy writes: magic, version, length, dict padded with spaces to a multiple of
/// 64 bytes and ended by '\n'. `version` is 1, 2 or 3.
inline std::string npy_header(const std::string& descr, bool fortran, const std::string& shape,
                              int version = 1) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape + ", }";
  const std::size_t prefix = version == 1 ? 10 : 12;
  std::size_t total = prefix + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(version));
  out.push_back('\0');
  const std::uint32_t len = static_cast<std::uint32_t>(dict.size());
  for (std::size_t i = 0; i < (version == 1 ? 2u : 4u); ++i) {
    out.push_back(static_cast<char>((len >> (8 * i)) & 0xFF));
  }
  return out + dict;
}

/// The raw bytes of `values` in host (little-endian) order, optionally byte-swapped per item.
template <typename T>
std::string raw_bytes(const std::vector<T>& values, bool swap = false) {
  std::string out;
  for (const T& v : values) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if (swap) std::reverse(b, b + sizeof(T));
    out.append(b, sizeof(T));
  }
  return out;
}

}  // namespace merlin::samples::testing
