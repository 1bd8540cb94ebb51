#pragma once
/// The project's logger: spdlog behind a tiny facade so no other file includes spdlog.
/// Lines are one event each, with key=value context: log::info("task done step={} sample={}", ..).
#include <fmt/format.h>

#include <string>
#include <string_view>

namespace merlin::log {

enum class Level { kDebug, kInfo, kWarn, kError, kOff };

/// Sets the threshold (default kInfo). Thread-safe.
void set_level(Level level);
Level level();
/// Parses "debug|info|warn|error|off"; unknown names give kInfo.
Level parse_level(std::string_view name);
/// "debug", "info", "warn", "error" or "off".
const char* level_name(Level level);

void write(Level level, std::string_view message);

template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... a) {
  if (level() <= Level::kDebug) write(Level::kDebug, fmt::format(f, std::forward<Args>(a)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... a) {
  if (level() <= Level::kInfo) write(Level::kInfo, fmt::format(f, std::forward<Args>(a)...));
}
template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... a) {
  if (level() <= Level::kWarn) write(Level::kWarn, fmt::format(f, std::forward<Args>(a)...));
}
template <typename... Args>
void error(fmt::format_string<Args...> f, Args&&... a) {
  if (level() <= Level::kError) write(Level::kError, fmt::format(f, std::forward<Args>(a)...));
}

}  // namespace merlin::log
