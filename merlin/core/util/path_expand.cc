#include "merlin/core/util/path_expand.h"

#include <cstdlib>

namespace merlin {
namespace {

bool name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

}  // namespace

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

std::string expand_user(std::string_view path, const EnvLookup& env) {
  if (!path.empty() && path[0] == '~' && (path.size() == 1 || path[1] == '/'))
    if (auto home = env("HOME")) return *home + std::string(path.substr(1));
  return std::string(path);
}

std::string expand_path(std::string_view path, const EnvLookup& env) {
  // The tilde first, on the path as written (a variable's value is not tilde-expanded).
  std::string out;
  std::size_t i = 0;
  if (auto home = expand_user(path.substr(0, 1), env);
      home != path.substr(0, 1) && (path.size() == 1 || path[1] == '/')) {
    out = home;
    i = 1;
  }
  while (i < path.size()) {
    if (path[i] != '$') {
      out.push_back(path[i++]);
      continue;
    }
    const bool braced = i + 1 < path.size() && path[i + 1] == '{';
    std::size_t start = i + (braced ? 2 : 1), end = start;
    while (end < path.size() && (end == start ? name_start(path[end]) : name_char(path[end])))
      ++end;
    const bool closed = !braced || (end < path.size() && path[end] == '}');
    std::optional<std::string> value;
    if (end > start && closed) value = env(std::string(path.substr(start, end - start)));
    if (!value) {  // not a variable, or not set: as written
      out.push_back(path[i++]);
      continue;
    }
    out += *value;
    i = end + (braced ? 1 : 0);
  }
  return out;
}

}  // namespace merlin
