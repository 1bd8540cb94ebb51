#pragma once
/// The terminal's progress line and the log (log.cc): each log line first clears a progress
/// line drawn on stderr (with "\r", by run/progress.cc), so that it is not written onto its end.
/// The progress line is drawn again on its next update.

namespace merlin::log {

/// Whether a progress line is on stderr's terminal now. Thread-safe.
void set_status_line(bool shown);

/// Whether it is still there (no log line has cleared it since it was drawn).
bool status_line_shown();

}  // namespace merlin::log
