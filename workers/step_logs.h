#pragma once
/// A lean workspace's step output (docs/lean-workspace.md): one worker's appender to the
/// per-process logs `<instance dir>/.merlin_logs/<writer>.{out,err,index}`. A step's stdout and
/// stderr are captured to node-local temp files while it runs (capture_file()); after it exits
/// append() copies them to the end of the logs, each after a marker line naming the sample and
/// attempt, and only then appends the index record (merlin/core/workspace/log_index.h) pointing at
/// them. Memory stays bounded: the bytes move file to file (copy_file_range, else 64 KiB
/// blocks). Only this object writes its files (the writer name is unique per process and
/// appender), so offsets are tracked here, under one lock.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "merlin/core/util/result.h"

namespace merlin {

struct StepLogsOptions {
  std::string writer;       ///< `<host>.<pid>[.<n>]`: names the files
  std::string capture_dir;  ///< where captures live while a step runs ($TMPDIR, else /tmp)
};

class StepLogs {
 public:
  explicit StepLogs(StepLogsOptions options);
  ~StepLogs();
  StepLogs(const StepLogs&) = delete;
  StepLogs& operator=(const StepLogs&) = delete;

  /// A new, unnamed file in capture_dir (O_TMPFILE; else made and unlinked at once), opened
  /// read-write and close-on-exec: a step's stdout or stderr. The caller closes it.
  Result<int> capture_file() const;

  /// What append() writes for one attempt.
  struct Attempt {
    std::uint64_t sample = 0;
    std::uint32_t attempt = 1;
    int exit_code = 0;
  };
  /// Appends the whole of `out_fd` and `err_fd` (read from offset 0) to the logs of
  /// `instance_dir`, each after a marker line, then the index record. Thread-safe.
  Result<void> append(const std::string& instance_dir, const Attempt& a, int out_fd, int err_fd);

  const std::string& writer() const { return options_.writer; }

 private:
  struct Files {
    int out = -1, err = -1, index = -1;
    std::uint64_t out_end = 0, err_end = 0, index_end = 0;
  };
  Result<Files*> files_of(const std::string& instance_dir);  ///< under mu_
  void close_all();                                          ///< under mu_

  StepLogsOptions options_;
  std::mutex mu_;
  std::map<std::string, Files> open_;  ///< by instance dir; closed when it grows past a bound
};

/// `<host>.<pid>`, the default writer name of this process.
std::string default_log_writer();

}  // namespace merlin
