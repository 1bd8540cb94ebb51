#pragma once
/// Progress of long work for people (like ninja's Status): counts, rate and ETA
/// (progress_line), one line rewritten in place on a terminal, or a line every so often in a
/// log. The local run, the dry layout, reading markers on restart and the worker fleet all
/// report through it. The clock is injected for tests.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

namespace merlin::run {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;
  virtual ~Progress() = default;
  /// Called as often as convenient; shows the counts when a line is due. The rate is over the
  /// time since the Progress was made.
  virtual void update(std::uint64_t done, std::uint64_t total) = 0;
  /// Whether `update` would show a line now (counting costs a server round trip: ask first).
  virtual bool due() const = 0;
  /// Ends the rewritten line on a terminal; nothing in a log.
  virtual void finish() = 0;
};

/// `what` + progress_line, rewritten in place on `out` at most every `every`.
std::unique_ptr<Progress> terminal_progress(std::string what, std::FILE* out,
                                            std::chrono::milliseconds every, Progress::Now now = {});
/// `what` + progress_line handed to `write` (a log) at most every `every`.
std::unique_ptr<Progress> log_progress(std::string what,
                                       std::function<void(const std::string&)> write,
                                       std::chrono::milliseconds every, Progress::Now now = {});
/// On a terminal `out` a line rewritten each `tty_every`, else a line on `out` each
/// `log_every`.
std::unique_ptr<Progress> progress_on(std::FILE* out, std::string what,
                                      std::chrono::milliseconds tty_every,
                                      std::chrono::milliseconds log_every);

}  // namespace merlin::run
