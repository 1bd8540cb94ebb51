#include "merlin/cli/cli_util.h"

#include <CLI/CLI.hpp>

#include <ctime>
#include <filesystem>
#include <thread>

namespace merlin::cli {

void reclaim_spec(std::vector<std::string>& vars, std::string& spec) {
  if (spec.empty() && !vars.empty() && vars.back().find('=') == std::string::npos) {
    spec = vars.back();
    vars.pop_back();
  }
}

void add_kill_wait_option(CLI::App& sub, double& seconds) {
  sub.add_option("--kill-wait", seconds,
                 "Seconds a step may take to end after SIGTERM, when a second interrupt ends "
                 "the running steps, before it is killed (SIGKILL)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6));
}

void add_task_server_option(CLI::App& sub) {
  sub.add_option_function<std::string>(
         "--task_server", [](const std::string&) {},
         "Merlin's task server; only 'celery' is accepted, and it changes nothing (the broker "
         "is Redis, named by --broker, MERLIN_BROKER_URL or ~/.merlin/app.yaml)")
      ->check(CLI::IsMember({"celery"}));
}

}  // namespace merlin::cli
