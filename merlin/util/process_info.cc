#include "merlin/util/process_info.h"

#include <ctime>
#include <filesystem>
#include <system_error>
#include <thread>

namespace merlin {

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t\n'\"$`\\;&|<>()*?[]{}!~#") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("merlin") : p.string();
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

}  // namespace merlin
