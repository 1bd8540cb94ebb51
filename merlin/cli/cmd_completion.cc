#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/completion_script.h"

namespace merlin::cli {

Command completion_command() {
  return {"completion",
          "Print the bash completion script (bash), or each command with its summary "
          "(commands: what the man pages are made from); hidden, docs/cli.md",
          [](CLI::App& sub) -> std::function<int()> {
            sub.group("");  // hidden from --help: for the build, packagers and docs/cli.md
            auto what = std::make_shared<std::string>();
            offer_values(sub.add_option("what", *what, "bash or commands")->required(),
                         {"bash", "commands"});
            CLI::App* root = &sub;
            while (root->get_parent() != nullptr) root = root->get_parent();
            return [what, root]() -> int {
              if (*what == "bash") {
                std::fputs(bash_completion_script(*root).c_str(), stdout);
                return kExitOk;
              }
              if (*what == "commands") {
                for (const auto& c : visible_commands(*root)) {
                  std::string path;
                  for (const auto& w : c.path) path += (path.empty() ? "" : " ") + w;
                  std::printf("%s\t%s\n", path.c_str(), c.summary.c_str());
                }
                return kExitOk;
              }
              return report_error(
                  Error::bad_input("completion: '" + *what + "' is not bash or commands"));
            };
          }};
}

}  // namespace merlin::cli
