#pragma once
/// A `shell:` value as the program and arguments to run a script with. Merlin (through
/// Maestro) writes `#!<shell>` as a script's first line and runs the shell's words followed by
/// the script, so `shell: /usr/bin/env python3` runs `/usr/bin/env python3 script.sh`. Words
/// are split on blanks only: no quoting, as a `#!` line has none.
#include <string>
#include <string_view>
#include <vector>

namespace merlin {

/// The blank-separated words of `shell`; {"/bin/bash"} when it has none.
inline std::vector<std::string> shell_words(std::string_view shell) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < shell.size()) {
    while (i < shell.size() && (shell[i] == ' ' || shell[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < shell.size() && shell[i] != ' ' && shell[i] != '\t') ++i;
    if (i > start) out.emplace_back(shell.substr(start, i - start));
  }
  if (out.empty()) out.emplace_back("/bin/bash");
  return out;
}

}  // namespace merlin
