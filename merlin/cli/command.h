#pragma once
/// One CLI subcommand per file; each registers its options on a CLI11 app and returns the
/// process exit code. CLI11 stays inside merlin/cli.
#include <functional>
#include <string>
#include <vector>

#include "merlin/util/exit_codes.h"
#include "merlin/util/result.h"

namespace CLI {
class App;
}

namespace merlin::cli {

struct Command {
  const char* name;
  const char* help;
  /// Adds the subcommand's options; returns the action run when it is chosen.
  std::function<std::function<int()>(CLI::App& sub)> setup;
};

Command run_command();
Command restart_command();
Command status_command();
Command detailed_status_command();
Command validate_command();
Command example_command();
Command run_workers_command();
Command queue_info_command();
Command query_workers_command();
Command stop_workers_command();
Command purge_command();
Command monitor_command();
Command info_command();
Command config_command();
Command sample_command();
Command collect_command();
Command logs_command();
/// Hidden: `merlin completion bash|commands` (completion_script.h).
Command completion_command();
Command server_command();

/// Rewrites Merlin's many-letter short flags of `merlin server config` (-ip, -pwd, -ss, ...)
/// as their long names in a command line (cmd_server.cc).
void server_short_flags(std::vector<std::string>& args);

/// Prints an error (all lines) to stderr as "merlin: ..." and returns its exit code: 2 for bad
/// input, else 1. Defined in command.cc.
int report_error(const Error& e);

}  // namespace merlin::cli
