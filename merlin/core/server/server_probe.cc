#include "merlin/core/server/server_probe.h"

#include <charconv>

namespace merlin::server {
namespace {

long long number(std::string_view s) {
  long long v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

ServerFacts parse_info(std::string_view info) {
  ServerFacts f;
  std::size_t start = 0;
  while (start < info.size()) {
    std::size_t nl = info.find('\n', start);
    if (nl == std::string_view::npos) nl = info.size();
    std::string_view line = info.substr(start, nl - start);
    start = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon), value = line.substr(colon + 1);
    if (key == "process_id")
      f.pid = number(value);
    else if (key == "uptime_in_seconds")
      f.uptime_seconds = number(value);
    else if (key == "used_memory")
      f.used_memory = number(value);
    else if (key == "redis_version")
      f.version = value;
    else if (key == "loading")
      f.loading = value == "1";
    else if (key.size() > 2 && key.substr(0, 2) == "db") {
      // db0:keys=12,expires=0,avg_ttl=0
      if (value.substr(0, 5) == "keys=") {
        auto comma = value.find(',');
        f.keys += number(value.substr(5, comma == std::string_view::npos ? value.npos : comma - 5));
      }
    }
  }
  return f;
}

}  // namespace merlin::server
