#pragma once
/// CRC32C (Castagnoli), the checksum of staged outputs (docs/staging.md): the one iSCSI,
/// ext4/Btrfs metadata and cloud object stores (`gsutil hash -c`) use, so a user can check a
/// staged file with standard tools; computed by the CPU's crc32 instruction when it has one
/// (SSE4.2: several GB/s, so checksumming hides inside the copy), else by a table.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace merlin {

/// Continues a CRC32C over `size` bytes: start with crc = 0 and feed each result back in.
/// crc32c_extend(0, "123456789") == 0xE3069283. Thread-safe.
std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t size);

inline std::uint32_t crc32c(std::string_view bytes) {
  return crc32c_extend(0, bytes.data(), bytes.size());
}

}  // namespace merlin
