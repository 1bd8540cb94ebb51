#pragma once
/// A step's `cmd` or `restart` text as Merlin hands it to Maestro's script writer.
#include <string>
#include <string_view>

namespace merlin {

/// Merlin 1.13 writes the expanded spec (`<name>.expanded.yaml`) and reads it back before
/// Maestro writes the scripts. Its writer puts a one-line text on the key's line as it is, so
/// YAML reads it back as a plain scalar: no surrounding spaces, tabs or newline. A text of
/// several lines becomes a `|` block, which YAML reads back with exactly one final newline
/// (trailing empty lines dropped). This applies that round trip, so scripts match Merlin's
/// byte for byte: "echo a\n" → "echo a"; "a\nb\n\n" → "a\nb\n"; "a\nb" → "a\nb\n".
std::string merlin_step_text(std::string_view text);

/// A step's counts as written (empty: not set), for `with_vlauncher_lines`.
struct VlauncherCounts {
  std::string nodes, procs, cores_per_task, gpus;
};

/// Merlin's lines before a command that uses `$(VLAUNCHER)`: `MERLIN_GPUS=g`, `MERLIN_CORES=c`,
/// `MERLIN_PROCS=p`, `MERLIN_NODES=n`, in that order, each left out when a line of the command
/// that does not start with `#` sets it already (`MERLIN_NODES=<digits>`); the values are the
/// step's `gpus`, `cores per task`, `procs`, `nodes`, else 0, 1, 1, 1; each line starts with
/// `set ` when the shell is a csh. A command without `$(VLAUNCHER)` is returned unchanged.
std::string with_vlauncher_lines(std::string_view cmd, const VlauncherCounts& counts,
                                 std::string_view shell);

}  // namespace merlin
