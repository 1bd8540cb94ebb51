#pragma once
/// One CLI subcommand per file; each registers its options on a CLI11 app and returns the
/// process exit code. CLI11 stays inside merlin/cli.
#include <functional>
#include <string>
#include <vector>

#include "merlin/run/run_workers_options.h"
#include "merlin/run/step_executors.h"
#include "merlin/core/util/exit_codes.h"
#include "merlin/core/util/result.h"

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
/// `executor` runs the steps (the real one: a shell per task; the broker load benchmark,
/// tests/bench/broker_load_main.cc, passes one that runs nothing).
Command run_workers_command(run::ExecutorFactory executor = run::process_executor);
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
Command verify_command();
/// Hidden: `merlin completion bash|commands` (completion_script.h).
Command completion_command();
Command server_command();
Command database_command();

/// Adds `merlin run-workers`' own options (not the broker's) to `sub`, parsed into `o`.
void add_run_workers_flags(CLI::App& sub, run::RunWorkersOptions& o);
/// Reads the words after `merlin` of a `run-workers` command line (as run::run_workers_argv
/// renders them for a batch job) the way `merlin` does; --log-level goes to `log_level`.
/// kBadInput with CLI11's words when they do not parse.
Result<run::RunWorkersOptions> parse_run_workers_line(const std::vector<std::string>& words);

/// Rewrites Merlin's many-letter short flags of `merlin server config` (-ip, -pwd, -ss, ...)
/// as their long names in a command line (cmd_server.cc).
void server_short_flags(std::vector<std::string>& args);

/// Prints an error (all lines) to stderr as "merlin: ..." and returns its exit code: 2 for bad
/// input, else 1. Defined in command.cc.
int report_error(const Error& e);

}  // namespace merlin::cli
