#include "merlin/core/broker/task_message.h"

#include <charconv>
#include <vector>

namespace merlin {

std::string encode(const TaskMessage& m) {
  std::string s = "v1 ";
  s += std::to_string(m.instance.v) + ' ' + std::to_string(m.lo) + ' ' + std::to_string(m.hi) +
       ' ' + std::to_string(m.attempt) + ' ' + std::to_string(static_cast<int>(m.kind)) + ' ' +
       (m.gated ? '1' : '0');
  return s;
}

std::optional<TaskMessage> decode(std::string_view text) {
  if (text.substr(0, 3) != "v1 ") return std::nullopt;
  text.remove_prefix(3);
  std::uint64_t f[6];
  for (int i = 0; i < 6; ++i) {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), f[i]);
    if (ec != std::errc()) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(p - text.data()));
    if (i < 5) {
      if (text.empty() || text[0] != ' ') return std::nullopt;
      text.remove_prefix(1);
    }
  }
  if (!text.empty() || f[2] <= f[1] || f[4] > 1 || f[5] > 1 || f[0] > UINT32_MAX ||
      f[3] > UINT32_MAX)
    return std::nullopt;
  TaskMessage m;
  m.instance = InstanceId{static_cast<std::uint32_t>(f[0])};
  m.lo = f[1];
  m.hi = f[2];
  m.attempt = static_cast<std::uint32_t>(f[3]);
  m.kind = static_cast<TaskKind>(f[4]);
  m.gated = f[5] == 1;
  return m;
}

}  // namespace merlin
