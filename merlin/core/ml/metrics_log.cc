#include "merlin/core/ml/metrics_log.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace merlin::ml {

Result<MetricsLog> MetricsLog::open(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr)
    return Error::bad_input("--metrics: cannot open " + path + ": " + std::strerror(errno));
  return MetricsLog(path, f);
}

Result<void> MetricsLog::append(const std::string& line) {
  // One write of the whole line, then a flush: a kill leaves whole lines and at most one cut
  // short, which the reader passes over.
  const std::string text = line + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_.get()) != text.size() ||
      std::fflush(file_.get()) != 0)
    return Error::runtime("cannot write --metrics file " + path_ + ": " + std::strerror(errno));
  return ok();
}

}  // namespace merlin::ml
