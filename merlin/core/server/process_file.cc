#include "merlin/core/server/process_file.h"

#include <charconv>

#include "merlin/core/server/server_files.h"

namespace merlin::server {
namespace {

long long number(std::string_view s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? v : 0;
}

}  // namespace

std::string format_process_file(const ProcessRecord& r) {
  // parent_pid and image_pid are Merlin's keys (its container and the redis in it); here both
  // are the redis-server process.
  const std::string pid = std::to_string(r.pid);
  return "parent_pid: " + pid + "\nimage_pid: " + pid + "\nhostname: " + r.hostname +
         "\nbind: " + r.bind + "\nport: " + std::to_string(r.port) +
         "\nstarted: " + std::to_string(r.started) + "\n";
}

std::optional<ProcessRecord> parse_process_file(std::string_view text) {
  ProcessRecord r;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(start, nl - start);
    start = nl + 1;
    auto colon = line.find(": ");
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon), value = line.substr(colon + 2);
    if (key == "parent_pid")
      r.pid = number(value);
    else if (key == "hostname")
      r.hostname = value;
    else if (key == "bind")
      r.bind = value;
    else if (key == "port")
      r.port = static_cast<int>(number(value));
    else if (key == "started")
      r.started = number(value);
  }
  if (r.pid <= 0) return std::nullopt;
  return r;
}

std::string merlin_server_yaml(const ServerFiles& f) {
  return "# merlin server's files (LLNL Merlin's layout). This build runs Debian's redis-server\n"
         "# directly: no container image; the settings are in redis.conf.\n"
         "container:\n"
         "  format: local\n"
         "  image_type: redis\n"
         "  config: redis.conf\n"
         "  config_dir: " +
         f.dir +
         "\n"
         "  pfile: merlin_server.pf\n"
         "  pass_file: redis.pass\n"
         "  user_file: redis.users\n";
}

}  // namespace merlin::server
