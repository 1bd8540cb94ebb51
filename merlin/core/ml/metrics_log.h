#pragma once
/// merlin-train's --metrics file: one line per epoch, appended and flushed as the epoch ends, so
/// a reader (a tuned step's commit, docs/tuning.md) sees every finished epoch even when the run
/// is killed next. Opened in append mode: a resumed run goes on after the earlier run's lines.
#include <cstdio>
#include <memory>
#include <string>

#include "merlin/core/util/result.h"

namespace merlin::ml {

class MetricsLog {
 public:
  /// Opens `path` for appending, making its parent directories. Errors (kBadInput) name the
  /// path when it cannot be opened.
  static Result<MetricsLog> open(const std::string& path);

  /// Appends `line` and a newline, then flushes. Errors (kRuntime) when the write fails.
  Result<void> append(const std::string& line);

  const std::string& path() const { return path_; }

 private:
  struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  MetricsLog(std::string path, std::FILE* f) : path_(std::move(path)), file_(f) {}
  std::string path_;
  std::unique_ptr<std::FILE, Close> file_;
};

}  // namespace merlin::ml
