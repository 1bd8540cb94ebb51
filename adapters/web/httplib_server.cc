// The HttpServer on cpp-httplib (Debian's libcpp-httplib-dev): the one file that includes
// httplib.h. httplib's own accept loop gives each connection a pooled thread that waits on the
// client while its head arrives (a per-read timeout, which a byte a second resets), and its
// stop() joins those threads: so it only binds and parses here. HeadReader accepts and reads
// heads within HttpLimits; a complete head goes to a queue our threads answer from, through
// httplib's request parser and router on a stream that replays the bytes read.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "adapters/web/head_reader.h"
#include "adapters/web/http_server.h"

namespace merlin::web {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A connection whose head was read already: reads replay those bytes and then end (the server
// takes no request body beyond what came with the head: a GET has none), writes go to the
// socket within a total deadline, so no read or write waits on the client for long.
class ReplayStream final : public httplib::Stream {
 public:
  ReplayStream(int fd, std::string bytes, std::int64_t write_deadline_ms)
      : fd_(fd), bytes_(std::move(bytes)), deadline_ms_(write_deadline_ms) {}

  bool is_readable() const override { return pos_ < bytes_.size(); }
  bool is_writable() const override { return steady_ms() < deadline_ms_; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, bytes_.size() - pos_);
    std::copy_n(bytes_.data() + pos_, n, ptr);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    size_t sent = 0;
    while (sent < size) {
      const std::int64_t left = deadline_ms_ - steady_ms();
      if (left <= 0) return -1;
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;  // timed out: checked above
      const ssize_t n = ::send(fd_, ptr + sent, size - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
      if (n > 0) sent += static_cast<size_t>(n);
    }
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(::getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(::getsockname, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  void address_of(int (*name)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    char text[INET6_ADDRSTRLEN] = {};
    port = 0;
    ip.clear();
    if (name(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) return;
    if (a.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
      ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      port = ntohs(v4->sin_port);
    } else if (a.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
      ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      port = ntohs(v6->sin6_port);
    }
    ip = text;
  }

  int fd_;
  std::string bytes_;
  size_t pos_ = 0;
  std::int64_t deadline_ms_;
};

// httplib's parser and router for one request on a stream, which it keeps protected.
class Router final : public httplib::Server {
 public:
  void answer(httplib::Stream& stream) {
    bool closed = false;
    process_request(stream, /*close_connection=*/true, closed, nullptr);
  }
  int listening_socket() const { return svr_sock_; }
  void close_listening_socket() {
    const socket_t fd = svr_sock_.exchange(INVALID_SOCKET);
    if (fd != INVALID_SOCKET) ::close(fd);
  }
};

class HttplibServer final : public HttpServer {
 public:
  explicit HttplibServer(const HttpLimits& limits) : limits_(limits) {}
  ~HttplibServer() override { stop(); }

  Result<int> start(const std::string& address, int port, HttpHandler handler) override {
    // httplib's default sets SO_REUSEPORT, which would let a second server share a port that
    // is taken: SO_REUSEADDR only, so a taken port is an error.
    router_.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    router_.set_payload_max_length(limits_.max_head_bytes);
    if (address.find(':') != std::string::npos) router_.set_address_family(AF_INET6);
    router_.Get(".*", [handler](const httplib::Request& req, httplib::Response& res) {
      HttpRequest r;
      r.method = req.method;
      r.path = req.path;
      for (const auto& [k, v] : req.params) r.query.emplace(k, v);
      for (const auto& [k, v] : req.headers) r.headers.emplace(lower(k), v);
      HttpResponse out = handler(r);
      res.status = out.status;
      for (const auto& [k, v] : out.headers) res.set_header(k, v);
      res.set_content(out.body, out.content_type.c_str());
    });
    int bound = port;
    if (port == 0)
      bound = router_.bind_to_any_port(address);
    else if (!router_.bind_to_port(address, port))
      bound = -1;
    if (bound < 0) {
      if (port == 0)
        return Error::unavailable("cannot listen on " + address +
                                  ": no free port, or the address is not one of this host's");
      return Error::unavailable("cannot listen on " + address + ":" + std::to_string(port) +
                                ": the port is taken or the address is not one of this host's "
                                "(another --port, or --port 0 for a free one)");
    }
    reader_ = std::make_unique<HeadReader>(router_.listening_socket(), limits_,
                                           [this](ReadyConnection c) { enqueue(std::move(c)); });
    if (auto ok = reader_->start(); !ok) return ok.error();
    for (std::size_t i = 0; i < limits_.threads; ++i) threads_.emplace_back([this] { work(); });
    return bound;
  }

  void stop() override {
    if (!reader_) return;
    reader_->stop();  // closes every connection still sending its head
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      // Answers being written end now, whatever their clients read.
      for (int fd : answering_) ::shutdown(fd, SHUT_RDWR);
    }
    ready_cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
    for (auto& c : queue_) ::close(c.fd);
    queue_.clear();
    reader_.reset();
    router_.close_listening_socket();
  }

 private:
  void enqueue(ReadyConnection c) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(c));
    }
    ready_cv_.notify_one();
  }

  void work() {
    while (true) {
      ReadyConnection c;
      {
        std::unique_lock lock(mutex_);
        ready_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        c = std::move(queue_.front());
        queue_.pop_front();
        answering_.insert(c.fd);
      }
      ReplayStream stream(c.fd, std::move(c.bytes), steady_ms() + limits_.write_timeout_ms);
      router_.answer(stream);
      {
        std::lock_guard lock(mutex_);
        answering_.erase(c.fd);
      }
      reader_->release(c.fd);  // before close: the number may be reused at once
      ::shutdown(c.fd, SHUT_WR);
      ::close(c.fd);
    }
  }

  HttpLimits limits_;
  Router router_;
  std::unique_ptr<HeadReader> reader_;
  std::mutex mutex_;
  std::condition_variable ready_cv_;
  std::deque<ReadyConnection> queue_;
  std::set<int> answering_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

std::unique_ptr<HttpServer> make_http_server(const HttpLimits& limits) {
  return std::make_unique<HttplibServer>(limits);
}

}  // namespace merlin::web
