#include "merlin/core/study/scratch_paths.h"

#include <unistd.h>

namespace merlin {

std::string scratch_root(const std::string& value, const ScratchSettings& settings) {
  const EnvLookup env = settings.env ? settings.env : process_environment();
  auto set = [&](const char* name) -> std::string {
    auto v = env(name);
    return v ? *v : "";
  };
  std::string root;
  if (value == "auto") {
    root = set("MERLIN_SCRATCH");
    if (root.empty()) root = expand_path(settings.app_scratch, env);
    if (root.empty()) root = set("TMPDIR");
    if (root.empty()) root = "/tmp";
  } else {
    root = expand_path(value, env);
  }
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

std::string user_scratch_dir(const std::string& root, long uid) {
  if (uid < 0) uid = static_cast<long>(::geteuid());
  return (root == "/" ? "" : root) + "/merlin-" + std::to_string(uid);
}

std::string study_scratch_dir(const std::string& root, const std::string& workspace) {
  std::string base = workspace;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  auto slash = base.rfind('/');
  if (slash != std::string::npos) base = base.substr(slash + 1);
  return (root == "/" ? "" : root) + "/merlin-" + base;
}

}  // namespace merlin
