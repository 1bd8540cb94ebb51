#include "adapters/web/head_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace merlin::web {
namespace {

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Connections accepted per turn of the loop, so that heads already in are read between bursts
// of new connections.
constexpr int kAcceptsPerTurn = 16;

constexpr const char* kTimeoutReply =
    "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
constexpr const char* kTooLargeReply =
    "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
    "Content-Length: 0\r\n\r\n";

}  // namespace

HeadReader::HeadReader(int listen_fd, const HttpLimits& limits,
                       std::function<void(ReadyConnection)> ready)
    : listen_fd_(listen_fd), limits_(limits), ready_(std::move(ready)), table_(limits) {}

HeadReader::~HeadReader() {
  stop();
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
}

Result<void> HeadReader::start() {
  if (::pipe2(wake_, O_NONBLOCK | O_CLOEXEC) != 0)
    return Error::runtime(std::string("monitor --web: cannot make a pipe: ") +
                          std::strerror(errno));
  // Accept until EAGAIN without blocking; a longer backlog than httplib's 5 rides out bursts.
  ::fcntl(listen_fd_, F_SETFL, ::fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
  ::listen(listen_fd_, SOMAXCONN);
  thread_ = std::thread([this] { run(); });
  return {};
}

void HeadReader::release(int fd) {
  std::lock_guard lock(mutex_);
  table_.release(fd);
}

void HeadReader::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  if (wake_[1] >= 0) {
    const char byte = 0;
    [[maybe_unused]] auto n = ::write(wake_[1], &byte, 1);
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  while (!heads_.empty()) close_waiting(heads_.begin()->first, nullptr);
}

void HeadReader::close_waiting(int fd, const char* reply) {
  // Best effort: a client that reads nothing gets nothing, and nothing waits on it.
  if (reply != nullptr) ::send(fd, reply, std::strlen(reply), MSG_NOSIGNAL | MSG_DONTWAIT);
  table_.release(fd);
  heads_.erase(fd);
  ::close(fd);
}

void HeadReader::accept_some(std::int64_t now_ms) {
  for (int i = 0; i < kAcceptsPerTurn; ++i) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or out of descriptors: the next turn tries again
    auto admission = table_.admit(fd, now_ms);
    if (admission.evicted) close_waiting(*admission.evicted, nullptr);
    if (!admission.admitted) {
      ::close(fd);
      continue;
    }
    heads_[fd];
  }
}

void HeadReader::read_from(int fd, std::vector<ReadyConnection>& ready) {
  std::string& head = heads_[fd];
  char buf[4096];
  while (true) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      head.append(buf, static_cast<std::size_t>(n));
      if (head.size() > limits_.max_head_bytes) break;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
    close_waiting(fd, nullptr);  // closed by the client, or reset
    return;
  }
  switch (scan_head(head, limits_.max_head_bytes)) {
    case HeadState::kIncomplete:
      return;
    case HeadState::kTooLarge:
      // Read on what already came (a little), so that closing does not reset the connection
      // before the client reads why.
      for (int i = 0; i < 16 && ::recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0; ++i) continue;
      close_waiting(fd, kTooLargeReply);
      return;
    case HeadState::kComplete:
      table_.answering(fd);
      ready.push_back(ReadyConnection{fd, std::move(head)});
      heads_.erase(fd);
      return;
  }
}

void HeadReader::run() {
  std::vector<pollfd> fds;
  while (true) {
    int timeout_ms = -1;
    fds.clear();
    fds.push_back({wake_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      for (const auto& [fd, head] : heads_) fds.push_back({fd, POLLIN, 0});
      if (auto deadline = table_.next_deadline())
        timeout_ms = static_cast<int>(std::max<std::int64_t>(0, *deadline - steady_ms() + 1));
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) return;
    std::vector<ReadyConnection> ready;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      char drain[64];
      if (fds[0].revents != 0)
        while (::read(wake_[0], drain, sizeof drain) > 0) continue;
      for (std::size_t i = 2; i < fds.size(); ++i)
        if (fds[i].revents != 0 && heads_.count(fds[i].fd)) read_from(fds[i].fd, ready);
      const std::int64_t now = steady_ms();
      for (int fd : table_.expired(now))
        if (heads_.count(fd)) close_waiting(fd, kTimeoutReply);
      if (fds[1].revents != 0) accept_some(now);
    }
    for (auto& r : ready) ready_(std::move(r));
  }
}

}  // namespace merlin::web
