#include "merlin/core/util/isolated_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace merlin {

IsolatedOutcome isolated_call(const std::function<int(std::string& message)>& fn,
                              std::chrono::milliseconds limit) {
  IsolatedOutcome out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.message = std::strerror(errno);
    return out;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    out.message = std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string message;
    int code = 1;
    try {
      code = fn(message);
    } catch (...) {
      message = "an exception";
    }
    if (message.size() > 4096) message.resize(4096);
    for (std::size_t done = 0; done < message.size();) {
      const ssize_t n = ::write(fds[1], message.data() + done, message.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(code & 0xff);  // no atexit handlers, no flushing of the parent's buffers
  }
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  for (;;) {  // read the message until the child closes its end (it exits, or is killed)
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      out.how = IsolatedOutcome::How::kTimedOut;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (out.message.size() < 4096) out.message.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (out.how == IsolatedOutcome::How::kTimedOut) return out;
  if (WIFSIGNALED(status)) {
    out.how = IsolatedOutcome::How::kSignaled;
    out.code = WTERMSIG(status);
  } else {
    out.how = IsolatedOutcome::How::kExited;
    out.code = WEXITSTATUS(status);
  }
  return out;
}

}  // namespace merlin
