#include "merlin/core/data/compression.h"

#include <cstdlib>

namespace merlin::data {

Result<Compression> parse_compression(const std::string& text) {
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const std::string level = colon == std::string::npos ? "" : text.substr(colon + 1);
  auto bad = [&] {
    return Error::bad_input("--compression " + text +
                            ": none, gzip[:1-9] or lz4 (default gzip:4)");
  };
  Compression c;
  int lo = 0, hi = 0;
  if (name == "none") {
    c.kind = Compression::Kind::kNone;
  } else if (name == "gzip") {
    c.kind = Compression::Kind::kGzip;
    c.level = 4;
    lo = 1, hi = 9;
  } else if (name == "lz4") {
    c.kind = Compression::Kind::kLz4;
  } else if (name == "zstd") {
    // HDF5's zstd filter is a plugin Debian's hdf5-filter-plugin does not have: h5py there
    // could not read the file.
    return Error::bad_input("--compression zstd: not offered (Debian's hdf5-filter-plugin, "
                            "which h5py reads plugin filters with, has no zstd filter); use "
                            "lz4 or gzip[:1-9]");
  } else {
    return bad();
  }
  if (colon == std::string::npos) return c;
  if (hi == 0 || level.empty()) return bad();
  char* end = nullptr;
  const long v = std::strtol(level.c_str(), &end, 10);
  if (*end != '\0' || v < lo || v > hi) return bad();
  c.level = static_cast<int>(v);
  return c;
}

std::string compression_text(const Compression& c) {
  switch (c.kind) {
    case Compression::Kind::kNone: return "none";
    case Compression::Kind::kGzip: return "gzip:" + std::to_string(c.level);
    case Compression::Kind::kLz4: return "lz4";
  }
  return "";
}

}  // namespace merlin::data
