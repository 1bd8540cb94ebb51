#pragma once
/// Data quoted in a message, made visible: a NUL would cut the message short when printed, a
/// control character would garble the terminal, and a byte-order mark or other non-ASCII
/// byte would hide in plain sight.
#include <cstddef>
#include <string>
#include <string_view>

namespace merlin {

/// `text` with C-style escapes: `\t`, `\n`, `\r`, `\\`, and `\xNN` for NUL, every other control
/// character, DEL and every byte from 0x80 (so a UTF-8 BOM reads `\xef\xbb\xbf`). Printable
/// ASCII is kept. Past `max_bytes` of input (if given) the rest is replaced by
/// "... (N bytes in all)".
/// Pure; thread-safe.
std::string visible_text(std::string_view text, std::size_t max_bytes = std::string_view::npos);

}  // namespace merlin
