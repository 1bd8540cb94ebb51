#pragma once
/// Runs a function in a child process (fork), so that a crash or a hang inside a library fed
/// with outside input (libhdf5 reading a damaged file) ends that child, not the command. The
/// child's verdict comes back as its exit code and a message written into a pipe.
#include <chrono>
#include <functional>
#include <string>

namespace merlin {

struct IsolatedOutcome {
  enum class How { kExited, kSignaled, kTimedOut, kNotRun } how = How::kNotRun;
  int code = 0;         ///< kExited: the function's return value (0..255); kSignaled: the signal
  std::string message;  ///< what the function left in its message (at most 4 KiB)
};

/// Runs `fn` in a forked child; its return value is the child's exit code and what it puts in
/// `message` comes back. Past `limit` the child is killed (SIGKILL) and the outcome is
/// kTimedOut. kNotRun (with errno's reason in `message`) when no child could be made. Call it
/// before starting threads: the child has only the calling thread. Its stdout and stderr are
/// the caller's.
IsolatedOutcome isolated_call(const std::function<int(std::string& message)>& fn,
                              std::chrono::milliseconds limit);

}  // namespace merlin
