#include "merlin/core/util/process_info.h"

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <thread>

extern char** environ;

namespace merlin {

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t\n'\"$`\\;&|<>()*?[]{}!~#") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string path_with(const std::string& path_var, const std::string& dir) {
  if (dir.empty()) return path_var;
  std::size_t start = 0;
  while (start <= path_var.size()) {
    std::size_t end = path_var.find(':', start);
    if (end == std::string::npos) end = path_var.size();
    if (path_var.compare(start, end - start, dir) == 0) return path_var;
    start = end + 1;
  }
  return path_var.empty() ? dir : path_var + ":" + dir;
}

void put_self_on_path() {
  const std::string exe = self_exe();
  const auto slash = exe.rfind('/');
  if (slash == std::string::npos) return;
  const char* path = std::getenv("PATH");
  ::setenv("PATH", path_with(path ? path : "", exe.substr(0, slash)).c_str(), 1);
}

void put_python_on_path() {
  const std::string exe = self_exe();
  const auto slash = exe.rfind('/');
  if (slash == std::string::npos) return;
  const std::string bin = exe.substr(0, slash);
  for (const std::string& dir : {bin + "/python", bin + "/../share/merlin/python"}) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    const std::string canonical = std::filesystem::weakly_canonical(dir, ec).string();
    const char* path = std::getenv("PYTHONPATH");
    ::setenv("PYTHONPATH", path_with(path ? path : "", ec ? dir : canonical).c_str(), 1);
    return;
  }
}

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("merlin") : p.string();
}

std::string beside_self(const std::string& name) {
  const std::string exe = self_exe();
  return exe.substr(0, exe.rfind('/') + 1) + name;
}

std::string current_dir() {
  std::error_code ec;
  auto p = std::filesystem::current_path(ec);
  return ec ? std::string(".") : p.string();
}

long long now_epoch() { return static_cast<long long>(std::time(nullptr)); }

int core_count() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

Result<std::vector<std::pair<std::string, std::string>>> parse_vars(
    const std::vector<std::string>& items) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : items) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      return Error::bad_input("--vars expects KEY=VALUE, got '" + s + "'");
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

std::vector<std::string> environment_with(const EnvOverrides& set) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    const auto eq = entry.find('=');
    const auto name = entry.substr(0, eq);
    const bool replaced =
        std::any_of(set.begin(), set.end(), [&](const auto& kv) { return kv.first == name; });
    if (!replaced) out.emplace_back(entry);
  }
  for (const auto& [name, value] : set) out.push_back(name + "=" + value);
  return out;
}

}  // namespace merlin
