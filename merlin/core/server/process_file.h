#pragma once
/// merlin_server.pf: what `start` records of the server it started, as Merlin's process file
/// (`key: value` lines): the pid, the host it runs on, where it listens, when it started.
#include <optional>
#include <string>
#include <string_view>

namespace merlin::server {

struct ProcessRecord {
  long long pid = 0;
  std::string hostname;
  std::string bind;
  int port = 0;
  long long started = 0;  ///< epoch seconds
};

std::string format_process_file(const ProcessRecord& r);
/// nullopt when the text holds no positive pid.
std::optional<ProcessRecord> parse_process_file(std::string_view text);

}  // namespace merlin::server
