#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/help_formatter.h"
#include "merlin/cli/parse_errors.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/process_info.h"
#include "merlin/core/util/version.h"

namespace {

// The deepest command chosen on the command line (`server config`: "server config"), or the
// app itself with "" when none was.
const CLI::App& chosen_command(const CLI::App& app, std::string& words) {
  const CLI::App* sub = &app;
  words.clear();
  while (true) {
    auto chosen = sub->get_subcommands();
    if (chosen.empty()) return *sub;
    sub = chosen.front();
    words += (words.empty() ? "" : " ") + sub->get_name();
  }
}

// A command's option names with their dashes, for "did you mean".
std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const auto* o : command.get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& n : o->get_snames()) names.push_back("-" + n);
  }
  return names;
}

// CLI11's error in our words: the command or option that is not there, with the nearest one.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e,
                                const std::vector<std::string>& args) {
  using namespace merlin::cli;
  std::string command;
  const CLI::App& sub = chosen_command(app, command);
  if (!command.empty())
    return command + ": " + e.what() + "; `merlin " + command + " --help` explains the options";
  // No command was recognised: the first word that is neither a known option nor its value.
  const auto options = option_names(sub);
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || a.front() != '-') {
      std::vector<std::string> names;
      for (const auto* c : app.get_subcommands([](const CLI::App*) { return true; }))
        if (!c->get_group().empty()) names.push_back(c->get_name());
      return unknown_command_message(a, names);
    }
    if (std::find(options.begin(), options.end(), a.substr(0, a.find('='))) == options.end())
      return unexpected_arguments_message("", {a}, options);
    if (a == "--level" || a == "--log-level") ++i;  // its value
  }
  return "a command is required; `merlin --help` lists the commands";
}

// The words of the command line that no option or positional took, as one message naming each
// (with the nearest option), or "" when there are none. A command that takes every word after
// it (prefix_command) has none.
std::string unexpected_words(const CLI::App& app, const std::vector<std::string>& args) {
  std::string command;
  const CLI::App& sub = chosen_command(app, command);
  if (sub.get_prefix_command()) return "";
  auto extra = app.remaining(true);
  if (extra.empty()) return "";
  std::vector<std::string> typed;  // in the order typed
  for (std::size_t i = 1; i < args.size(); ++i)
    if (std::find(extra.begin(), extra.end(), args[i]) != extra.end()) typed.push_back(args[i]);
  return merlin::cli::unexpected_arguments_message(command, typed.empty() ? extra : typed,
                                                   option_names(sub));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace merlin;
  using namespace merlin::cli;
  put_self_on_path();    // steps and generate.cmd may call `merlin sample` / `merlin collect`
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
  // Words no command takes are kept (in remaining()) rather than thrown as CLI11's message,
  // so that unexpected_words can name them in our words; the subcommands inherit this.
  app.allow_extras();
  app.set_version_flag("-v,--version", std::string("merlin ") + merlin_version() +
                                           " (runs the specs and commands of LLNL Merlin 1.13)");
  std::string level = "info";
  offer_values(app.add_option("--log-level,--level", level,
                              "debug, info, warn(ing), error or off, in any case (Merlin's -lvl "
                              "works too)")
                   ->capture_default_str(),
               {"debug", "info", "warn", "warning", "error", "off"});

  const std::vector<Command> commands = {run_command(),
                                         run_workers_command(),
                                         restart_command(),
                                         status_command(),
                                         detailed_status_command(),
                                         queue_info_command(),
                                         query_workers_command(),
                                         stop_workers_command(),
                                         purge_command(),
                                         monitor_command(),
                                         info_command(),
                                         validate_command(),
                                         example_command(),
                                         config_command(),
                                         sample_command(),
                                         collect_command(),
                                         logs_command(),
                                         verify_command(),
                                         server_command(),
                                         database_command(),
                                         completion_command()};
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
    std::fprintf(stderr, "merlin: %s\n", parse_error_message(app, e, args).c_str());
    return kExitBadInput;
  }
  if (auto extra = unexpected_words(app, args); !extra.empty()) {
    std::fprintf(stderr, "merlin: %s\n", extra.c_str());
    return kExitBadInput;
  }
  merlin::log::set_level(merlin::log::parse_level(level));
  return action ? action() : kExitBadInput;
}
