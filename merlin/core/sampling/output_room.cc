#include "merlin/core/sampling/output_room.h"

#include <cstdio>

namespace merlin::sampling {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::uint64_t estimated_bytes(const SampleDesign& d, const std::string& path) {
  const std::uint64_t rows = design_rows(d);
  const std::uint64_t values = rows * d.columns.size();
  if (ends_with(path, ".npy")) return 128 + values * 8;
  if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) return (64 << 10) + values * 8;
  std::uint64_t header = 0;
  for (const auto& c : d.columns) header += c.name.size() + 8;
  return header + values * 24;
}

std::uint64_t bytes_needed(std::uint64_t estimate) { return estimate + estimate / 20 + (1 << 20); }

Result<void> check_room(const std::string& path, std::uint64_t estimate, std::uint64_t free_bytes) {
  if (free_bytes >= bytes_needed(estimate)) return ok();
  return Error{ErrorCode::kNoSpace,
               path + " needs about " + bytes_text(estimate) + " and its file system has " +
                   bytes_text(free_bytes) +
                   " free; free some space, write fewer rows (-n), or write it elsewhere (-o)",
               false};
}

std::string bytes_text(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  return buf;
}

}  // namespace merlin::sampling
