#pragma once
/// `merlin completion`: the bash completion script and the list of commands, both read from the
/// CLI11 app tree the parser uses, so they follow every command and flag added to the CLI.
/// CLI11 stays inside merlin/cli.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace merlin::cli {

/// One visible (sub)command: its words after `merlin` ("config create") and the first clause
/// of its help (up to ": ", " (" or "; "), short enough for a man page's NAME line.
struct CommandSummary {
  std::vector<std::string> path;
  std::string summary;
};

/// Every visible command under `root`, depth first in declaration order (`config` before
/// `config create`). Hidden ones (CLI11 group "") are left out, with their subcommands.
std::vector<CommandSummary> visible_commands(CLI::App& root);

/// The first clause of a command's help text (see CommandSummary).
std::string short_summary(const std::string& help);

/// A bash script defining `_merlin` and `complete -F _merlin merlin`: commands and
/// subcommands, each command's flags (with those of the commands above it, which CLI11 takes
/// after a subcommand too), each option's values (completion_hints.h: listed values, spec
/// files, directories, file names) and its positionals in order. Needs bash >= 4.2 (associative
/// arrays), not the bash-completion package.
std::string bash_completion_script(CLI::App& root, const std::string& program = "merlin");

}  // namespace merlin::cli
