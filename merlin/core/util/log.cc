#include "merlin/core/util/log.h"
#include "merlin/core/util/status_line.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <string>

namespace merlin::log {
namespace {
std::atomic<Level> g_level{Level::kInfo};
std::atomic<bool> g_status_line{false};

spdlog::logger& logger() {
  // Logs go to stderr so that stdout stays clean for tables, JSON and CSV.
  static auto instance = [] {
    auto l = spdlog::stderr_color_mt("merlin");
    l->set_pattern("[%H:%M:%S.%e] %^%l%$ %v");
    l->set_level(spdlog::level::trace);
    return l;
  }();
  return *instance;
}
}  // namespace

void set_level(Level l) { g_level = l; }
Level level() { return g_level; }

Level parse_level(std::string_view name) {
  std::string n(name);  // Merlin's -lvl takes DEBUG, INFO, WARNING, ERROR
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "debug") return Level::kDebug;
  if (n == "warn" || n == "warning") return Level::kWarn;
  if (n == "error") return Level::kError;
  if (n == "off") return Level::kOff;
  return Level::kInfo;
}

const char* level_name(Level l) {
  switch (l) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warn";
    case Level::kError: return "error";
    case Level::kOff: return "off";
  }
  return "info";
}

void set_status_line(bool shown) { g_status_line = shown; }
bool status_line_shown() { return g_status_line; }

void write(Level l, std::string_view m) {
  // Carriage return and erase-to-end-of-line: the progress line goes, the log line takes its
  // place (the same FILE as spdlog's stderr sink, so the order holds).
  if (g_status_line.exchange(false)) std::fputs("\r\033[K", stderr);
  switch (l) {
    case Level::kDebug:
      logger().debug("{}", m);
      break;
    case Level::kInfo:
      logger().info("{}", m);
      break;
    case Level::kWarn:
      logger().warn("{}", m);
      break;
    case Level::kError:
      logger().error("{}", m);
      break;
    case Level::kOff:
      break;
  }
}

}  // namespace merlin::log
