#pragma once
/// What the shell should offer for an option's or a positional's value. The hint is kept on the
/// CLI11 option itself (as a named validator that accepts everything), so `merlin completion
/// bash` and the help text read it from the same app tree the parser uses: no second list of
/// flags to keep in sync. CLI11 stays inside merlin/cli.
#include <string>
#include <vector>

namespace CLI {
class Option;
}

namespace merlin::cli {

enum class Completion {
  kNone,       ///< free text or a number: nothing to offer
  kFile,       ///< any file name
  kDirectory,  ///< a directory
  kSpec,       ///< a study spec: *.yaml / *.yml files, and directories to walk into
  kValues,     ///< one of `values`
};

struct CompletionHint {
  Completion kind = Completion::kNone;
  std::vector<std::string> values;  ///< for kValues
};

/// Marks `opt`'s value as one of `values` (shown in --help as {a,b,c}; completed from them).
/// Only a hint: checking the value stays with the command, so its error message is unchanged.
/// Returns `opt` for chaining.
CLI::Option* offer_values(CLI::Option* opt, std::vector<std::string> values);

/// Marks `opt`'s value as completed by `kind` (kFile, kDirectory, kSpec or kNone).
CLI::Option* offer(CLI::Option* opt, Completion kind);

/// The hint of `opt`: the one given by offer()/offer_values(), else the values of a CLI11
/// set validator (`IsMember`, shown as {a,b}), else from its kind: nothing for a flag or a
/// number, a spec for a positional, a file name for any other option's value.
CompletionHint completion_hint(CLI::Option& opt);

/// The kind's word in a hint and in the completion script: none, file, dir, spec or values.
const char* completion_kind_word(Completion kind);

/// Whether `opt` takes a value (an option or positional), not a flag.
bool takes_value(const CLI::Option& opt);

/// The values of a set written as CLI11 shows it, "{a,b,c}"; empty if `text` is not one.
std::vector<std::string> parse_value_set(const std::string& text);

}  // namespace merlin::cli
