#include "merlin/cli/parse_errors.h"

#include "merlin/core/spec/did_you_mean.h"

namespace merlin::cli {

std::string unknown_command_message(std::string_view word,
                                    const std::vector<std::string>& commands) {
  return "unknown command '" + std::string(word) + "'" + spec::suggestion_suffix(word, commands) +
         "; `merlin --help` lists the commands";
}

std::string unexpected_arguments_message(std::string_view command,
                                         const std::vector<std::string>& unexpected,
                                         const std::vector<std::string>& options) {
  std::string out = command.empty() ? "" : std::string(command) + ": ";
  bool first = true;
  for (const auto& word : unexpected) {
    if (!first) out += ", ";
    first = false;
    // An option given as --name=value is judged by its name.
    std::string name = word.substr(0, word.find('='));
    if (!name.empty() && name.front() == '-')
      out += "unknown option '" + name + "'" + spec::suggestion_suffix(name, options);
    else
      out += "unexpected argument '" + word + "'";
  }
  std::string where = command.empty() ? "merlin" : "merlin " + std::string(command);
  return out + "; `" + where + " --help` lists the options";
}

}  // namespace merlin::cli
