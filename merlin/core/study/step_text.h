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

}  // namespace merlin
