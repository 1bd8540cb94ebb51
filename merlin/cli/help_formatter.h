#pragma once
/// The --help layout of every merlin command (and so of its man pages, made from --help by
/// help2man): option names as "-j, --jobs" (help2man sets both in bold), a value's type as its
/// kind alone (FLOAT, not "FLOAT:FLOAT in [0 - 1e+06]") or as its values when they are listed
/// ({table,json,csv}). CLI11 stays inside merlin/cli.
#include <memory>

namespace CLI {
class Formatter;
}

namespace merlin::cli {

/// The formatter to give the root app before its subcommands are added (they share it).
std::shared_ptr<CLI::Formatter> help_formatter();

}  // namespace merlin::cli
