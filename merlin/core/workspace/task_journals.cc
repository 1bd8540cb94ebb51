#include "merlin/core/workspace/task_journals.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace merlin {
namespace fs = std::filesystem;

namespace {
constexpr const char* kSuffix = ".journal";
}

std::string local_journal_path(const std::string& info_dir) {
  return info_dir + "/merlin.journal";
}

std::string worker_journal_path(const std::string& info_dir, const std::string& worker,
                                const std::string& host_pid) {
  std::string name = worker;
  std::replace(name.begin(), name.end(), '/', '_');
  std::replace(name.begin(), name.end(), '\0', '_');
  return info_dir + "/tasks/" + name + "@" + host_pid + kSuffix;
}

std::string journal_worker(const std::string& path) {
  std::string file = fs::path(path).filename().string();
  auto at = file.rfind('@');
  if (at == std::string::npos) return "";
  return file.substr(0, at);
}

Result<std::vector<std::string>> study_journals(const std::string& info_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (fs::exists(local_journal_path(info_dir), ec)) out.push_back(local_journal_path(info_dir));
  fs::path dir = fs::path(info_dir) / "tasks";
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<std::string> workers;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() > std::string(kSuffix).size() &&
        name.compare(name.size() - std::string(kSuffix).size(), std::string::npos, kSuffix) == 0)
      workers.push_back(it->path().string());
  }
  if (ec) return Error::runtime("cannot list " + dir.string() + ": " + ec.message());
  std::sort(workers.begin(), workers.end());
  out.insert(out.end(), workers.begin(), workers.end());
  return out;
}

}  // namespace merlin
