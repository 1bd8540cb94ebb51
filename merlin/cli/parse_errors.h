#pragma once
/// CLI11's parse errors in merlin's voice: what was wrong, the nearest right word, where the
/// list is. Pure: the caller gathers the known names from CLI11 (main.cc).
#include <string>
#include <string_view>
#include <vector>

namespace merlin::cli {

/// "unknown command 'rnu' (did you mean 'run'?); `merlin --help` lists the commands".
std::string unknown_command_message(std::string_view word,
                                    const std::vector<std::string>& commands);

/// "run: unknown option '--lcoal' (did you mean '--local'?); `merlin run --help` lists the
/// options", one line naming each word of `unexpected` (CLI11's "not expected" arguments); a word
/// that is not an option reads "unexpected argument 'x'". `command` is the words after merlin
/// ("server config"); `options` the command's option names with their dashes.
std::string unexpected_arguments_message(std::string_view command,
                                         const std::vector<std::string>& unexpected,
                                         const std::vector<std::string>& options);

}  // namespace merlin::cli
