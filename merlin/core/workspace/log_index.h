#pragma once
/// The index of a lean workspace's step logs (docs/lean-workspace.md). Each worker process
/// appends its steps' stdout and stderr to `<instance dir>/.merlin_logs/<host>.<pid>.out` and
/// `.err`, and, after the bytes are written, one fixed-size record here
/// (`<host>.<pid>.index`) saying where they are. `merlin logs` reads the records back. A torn
/// last record (a process killed mid-write) is ignored; a record never points at bytes not yet
/// written.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin {

/// One attempt of one task: where its output is in the process's .out and .err.
struct LogIndexRecord {
  std::uint64_t sample = 0;   ///< the sample id (0 for an unsampled step)
  std::uint32_t attempt = 1;  ///< 1 for the first run; retries and restarts count up
  std::int32_t exit_code = 0;
  std::uint64_t out_offset = 0, out_length = 0;  ///< the stdout bytes in `<base>.out`
  std::uint64_t err_offset = 0, err_length = 0;  ///< the stderr bytes in `<base>.err`
  std::int64_t end_ns = 0;  ///< when the output was appended (Unix time, ns): orders attempts
};

/// The file starts with this 8-byte magic; records (kLogIndexRecordSize bytes each, little
/// endian) follow.
inline constexpr std::string_view kLogIndexMagic = "MLOGIX1\n";
inline constexpr std::size_t kLogIndexRecordSize = 56;

/// The folder of an instance's logs: `<instance dir>/.merlin_logs`.
std::string log_dir_of(const std::string& instance_dir);

/// The record as its kLogIndexRecordSize bytes.
std::string encode_log_record(const LogIndexRecord& r);

/// The records of an index file's text (magic included). kBadInput when the magic is wrong
/// (not an index file); a trailing partial record is dropped.
Result<std::vector<LogIndexRecord>> decode_log_index(std::string_view bytes,
                                                     const std::string& path_for_errors);

/// One attempt found by find_log_attempts: the record and the files it points into.
struct LogAttempt {
  LogIndexRecord record;
  std::string out_path, err_path;
  std::string writer;  ///< `<host>.<pid>`: the worker process that ran it
};

/// Every attempt of `sample` recorded in `log_dir` (every `*.index` there), oldest first (by
/// end time, then attempt). Empty when the folder or the records are missing. kBadInput for an
/// unreadable or malformed index file.
Result<std::vector<LogAttempt>> find_log_attempts(const std::string& log_dir, std::uint64_t sample);

}  // namespace merlin
