#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/help_formatter.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/process_info.h"
#include "merlin/core/util/version.h"

int main(int argc, char** argv) {
  using namespace merlin;
  using namespace merlin::cli;
  put_self_on_path();  // steps and generate.cmd may call `merlin sample` / `merlin collect`
  put_python_on_path();  // steps may `import merlin_dataset` (docs/training.md)
  CLI::App app{
      "merlin: ensemble workflows for simulation campaigns.\n"
      "Runs LLNL Merlin / Maestro study specs: `merlin run --local spec.yaml` runs a study on "
      "this machine; `merlin run spec.yaml` queues it in Redis and `merlin run-workers "
      "spec.yaml` (anywhere that reaches that Redis and shares the file system) runs it; "
      "`merlin status` shows its progress. Exit codes: 0 ok, 1 study failed or a server "
      "refused, 2 bad input."};
  app.name("merlin");
  app.formatter(help_formatter());  // before the subcommands: they share it
  app.require_subcommand(1);
  app.fallthrough();  // --log-level also after the subcommand
  app.set_version_flag("-v,--version", std::string("merlin ") + merlin_version() +
                                           " (runs the specs and commands of LLNL Merlin 1.13)");
  std::string level = "info";
  offer_values(app.add_option("--log-level,--level", level,
                              "debug, info, warn(ing), error or off, in any case (Merlin's -lvl "
                              "works too)")
                   ->capture_default_str(),
               {"debug", "info", "warn", "warning", "error", "off"});

  const std::vector<Command> commands = {
      run_command(),        run_workers_command(),   restart_command(),      status_command(),
      detailed_status_command(),
      queue_info_command(), query_workers_command(), stop_workers_command(), purge_command(),
      monitor_command(),    info_command(),          validate_command(),     example_command(),
      config_command(),     sample_command(),        collect_command(),      logs_command(),
      server_command(),     completion_command()};
  std::function<int()> action;
  for (const auto& c : commands) {
    auto* sub = app.add_subcommand(c.name, c.help);
    auto act = c.setup(*sub);
    sub->callback([&action, act] { action = act; });
  }
  if (argc == 1) {  // bare `merlin`: the help on stdout and exit 1, as Merlin does
    std::fputs(app.help().c_str(), stdout);
    return kExitFailed;
  }
  // Merlin's `-lvl LEVEL` (a many-letter short flag, which CLI11 cannot declare).
  std::vector<std::string> args(argv, argv + argc);
  for (auto& a : args)
    if (a == "-lvl") a = "--level";
  server_short_flags(args);
  std::vector<char*> argp;
  for (auto& a : args) argp.push_back(a.data());
  try {
    app.parse(static_cast<int>(argp.size()), argp.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  merlin::log::set_level(merlin::log::parse_level(level));
  return action ? action() : kExitBadInput;
}
