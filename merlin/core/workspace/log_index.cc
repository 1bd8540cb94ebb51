#include "merlin/core/workspace/log_index.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "merlin/core/util/files.h"

namespace merlin {
namespace {

template <typename T>
void put(std::string& out, T v) {
  auto u = static_cast<std::make_unsigned_t<T>>(v);
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

template <typename T>
T get(const char* p) {
  std::make_unsigned_t<T> u = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    u |= static_cast<std::make_unsigned_t<T>>(static_cast<unsigned char>(p[i])) << (8 * i);
  return static_cast<T>(u);
}

}  // namespace

std::string log_dir_of(const std::string& instance_dir) { return instance_dir + "/.merlin_logs"; }

std::string encode_log_record(const LogIndexRecord& r) {
  std::string out;
  out.reserve(kLogIndexRecordSize);
  put(out, r.sample);
  put(out, r.attempt);
  put(out, r.exit_code);
  put(out, r.out_offset);
  put(out, r.out_length);
  put(out, r.err_offset);
  put(out, r.err_length);
  put(out, r.end_ns);
  return out;
}

Result<std::vector<LogIndexRecord>> decode_log_index(std::string_view bytes,
                                                     const std::string& path_for_errors) {
  if (bytes.substr(0, kLogIndexMagic.size()) != kLogIndexMagic)
    return Error::bad_input(path_for_errors + " is not a merlin log index (bad magic)");
  bytes.remove_prefix(kLogIndexMagic.size());
  std::vector<LogIndexRecord> out;
  out.reserve(bytes.size() / kLogIndexRecordSize);
  for (std::size_t at = 0; at + kLogIndexRecordSize <= bytes.size(); at += kLogIndexRecordSize) {
    const char* p = bytes.data() + at;
    LogIndexRecord r;
    r.sample = get<std::uint64_t>(p);
    r.attempt = get<std::uint32_t>(p + 8);
    r.exit_code = get<std::int32_t>(p + 12);
    r.out_offset = get<std::uint64_t>(p + 16);
    r.out_length = get<std::uint64_t>(p + 24);
    r.err_offset = get<std::uint64_t>(p + 32);
    r.err_length = get<std::uint64_t>(p + 40);
    r.end_ns = get<std::int64_t>(p + 48);
    out.push_back(r);
  }
  return out;
}

Result<std::vector<LogAttempt>> find_log_attempts(const std::string& log_dir,
                                                  std::uint64_t sample) {
  namespace fs = std::filesystem;
  std::vector<LogAttempt> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(log_dir, ec)) {
    const fs::path& p = e.path();
    if (p.extension() != ".index") continue;
    auto bytes = files::read(p.string());
    if (!bytes) return Error::bad_input("cannot read " + p.string() + ": " + bytes.error().message);
    auto records = decode_log_index(*bytes, p.string());
    if (!records) return records.error();
    const std::string base = (p.parent_path() / p.stem()).string();
    for (const auto& r : *records) {
      if (r.sample != sample) continue;
      out.push_back({r, base + ".out", base + ".err", p.stem().string()});
    }
  }
  std::sort(out.begin(), out.end(), [](const LogAttempt& a, const LogAttempt& b) {
    if (a.record.end_ns != b.record.end_ns) return a.record.end_ns < b.record.end_ns;
    return a.record.attempt < b.record.attempt;
  });
  return out;
}

}  // namespace merlin
