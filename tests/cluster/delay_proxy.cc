// merlin-delay-proxy: a TCP relay that holds every byte for a fixed time in each direction, the
// userspace stand-in for `tc qdisc ... netem delay` where the kernel has no netem (tests/cluster).
//
//   merlin-delay-proxy LISTEN_HOST:PORT TARGET_HOST:PORT DELAY_MS
//
// Each accepted connection gets its own connection to the target. What one side sends is
// written to the other DELAY_MS after it was read, in order, so a request and its reply cross
// the relay in 2 x DELAY_MS more than directly: a network path with that one-way delay. A side
// that closes is closed on the other side once what it sent before has been delivered. One
// thread, epoll, non-blocking sockets; at most 4 MiB held per direction (reading pauses above).
// Prints "listening HOST:PORT" once ready. Exit 2 on bad arguments, 1 when it cannot listen.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxHeld = 4u << 20;

struct Chunk {
  Clock::time_point due;
  std::string bytes;
  bool eof = false;  // the sender closed: shut the receiver's writing side once delivered
};

// One direction of a connection: bytes read from `from`, held, then written to `to`.
struct Pipe {
  int from = -1, to = -1;
  std::deque<Chunk> held;
  std::size_t held_bytes = 0, written = 0;  // written: of held.front()
  bool read_closed = false, write_closed = false;
};

struct Link {
  Pipe up, down;  // client -> target, target -> client
  bool dead = false;
};

bool parse_host_port(const std::string& s, sockaddr_in* out) {
  auto colon = s.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = s.substr(0, colon);
  char* end = nullptr;
  long port = std::strtol(s.c_str() + colon + 1, &end, 10);
  if (*end || port <= 0 || port > 65535) return false;
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_INET;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || !res) return false;
  *out = *reinterpret_cast<sockaddr_in*>(res->ai_addr);
  out->sin_port = htons(static_cast<uint16_t>(port));
  freeaddrinfo(res);
  return true;
}

void nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }
void nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

class Proxy {
 public:
  Proxy(int listener, sockaddr_in target, std::chrono::microseconds delay)
      : listener_(listener), target_(target), delay_(delay), ep_(epoll_create1(EPOLL_CLOEXEC)) {
    watch(listener_, EPOLLIN);
  }

  [[noreturn]] void run() {
    std::vector<epoll_event> ev(256);
    for (;;) {
      // Nanoseconds, not epoll_wait's milliseconds: a 0.2 ms delay must not become 1 ms.
      timespec ts{};
      const long long wait_ns = timeout_ns();
      ts.tv_sec = static_cast<time_t>(wait_ns / 1'000'000'000);
      ts.tv_nsec = static_cast<long>(wait_ns % 1'000'000'000);
      int n = epoll_pwait2(ep_, ev.data(), static_cast<int>(ev.size()), wait_ns < 0 ? nullptr : &ts,
                           nullptr);
      if (n < 0 && errno != EINTR) {
        std::perror("delay-proxy: epoll_pwait2");
        std::exit(1);
      }
      for (int i = 0; i < n; ++i) {
        int fd = ev[i].data.fd;
        if (fd == listener_) {
          accept_all();
          continue;
        }
        auto it = by_fd_.find(fd);
        if (it == by_fd_.end()) continue;
        auto link = it->second;
        if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
          read_into(fd == link->up.from ? link->up : link->down, *link);
        }
      }
      flush_due();
      reap();
    }
  }

 private:
  void watch(int fd, uint32_t events) {
    epoll_event e{};
    e.events = events;
    e.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &e);
  }
  void set_reading(int fd, bool on) {
    epoll_event e{};
    e.events = on ? static_cast<uint32_t>(EPOLLIN) : 0u;
    e.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_MOD, fd, &e);
  }

  void accept_all() {
    for (;;) {
      int c = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (c < 0) return;
      int t = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      // A blocking connect: the target is the broker beside us, answered at once or refused.
      if (t < 0 || connect(t, reinterpret_cast<sockaddr*>(&target_), sizeof target_) != 0) {
        if (t >= 0) close(t);
        close(c);
        continue;
      }
      nonblocking(t);
      nodelay(c);
      nodelay(t);
      auto link = std::make_shared<Link>();
      link->up.from = c;
      link->up.to = t;
      link->down.from = t;
      link->down.to = c;
      by_fd_[c] = link;
      by_fd_[t] = link;
      links_.push_back(link);
      watch(c, EPOLLIN);
      watch(t, EPOLLIN);
    }
  }

  void read_into(Pipe& p, Link& link) {
    if (p.read_closed) return;
    char buf[65536];
    for (;;) {
      ssize_t n = read(p.from, buf, sizeof buf);
      if (n > 0) {
        p.held.push_back({Clock::now() + delay_, std::string(buf, static_cast<std::size_t>(n))});
        p.held_bytes += static_cast<std::size_t>(n);
        if (p.held_bytes > kMaxHeld) {
          set_reading(p.from, false);  // resumed once delivered below the limit
          return;
        }
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        p.read_closed = true;
        set_reading(p.from, false);
        p.held.push_back({Clock::now() + delay_, {}, true});
        if (n < 0) link.dead = true;  // reset: no point delivering the rest
        return;
      }
      if (errno == EAGAIN) return;
    }
  }

  // Writes what is due, in order; a full socket keeps the rest for the next round.
  void flush_pipe(Pipe& p, Link& link) {
    const auto now = Clock::now();
    while (!p.held.empty() && p.held.front().due <= now && !p.write_closed) {
      Chunk& c = p.held.front();
      if (c.eof) {
        shutdown(p.to, SHUT_WR);
        p.write_closed = true;
        p.held.pop_front();
        break;
      }
      ssize_t n = write(p.to, c.bytes.data() + p.written, c.bytes.size() - p.written);
      if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) return;
        link.dead = true;
        return;
      }
      p.written += static_cast<std::size_t>(n);
      if (p.written < c.bytes.size()) return;
      p.held_bytes -= c.bytes.size();
      p.written = 0;
      p.held.pop_front();
      if (!p.read_closed && p.held_bytes <= kMaxHeld / 2) set_reading(p.from, true);
    }
  }

  void flush_due() {
    for (auto& l : links_) {
      if (l->dead) continue;
      flush_pipe(l->up, *l);
      flush_pipe(l->down, *l);
    }
  }

  void reap() {
    for (auto& l : links_) {
      bool done = l->dead || (l->up.write_closed && l->down.write_closed);
      if (!done) continue;
      for (int fd : {l->up.from, l->down.from}) {
        epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
        by_fd_.erase(fd);
        close(fd);
      }
      l.reset();
    }
    std::erase(links_, nullptr);
  }

  // Nanoseconds until the earliest held chunk is due, -1 when none is (a full socket is
  // retried every 100 us).
  long long timeout_ns() const {
    auto now = Clock::now();
    long long best = -1;
    for (const auto& l : links_)
      for (const Pipe* p : {&l->up, &l->down}) {
        if (p->held.empty() || p->write_closed) continue;
        long long ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(p->held.front().due - now).count();
        if (ns < 0) ns = 0;
        if (p->written > 0) ns = std::min(ns, 100'000LL);
        if (best < 0 || ns < best) best = ns;
      }
    return best;
  }

  int listener_;
  sockaddr_in target_;
  std::chrono::microseconds delay_;
  int ep_;
  std::map<int, std::shared_ptr<Link>> by_fd_;
  std::vector<std::shared_ptr<Link>> links_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: merlin-delay-proxy LISTEN_HOST:PORT TARGET_HOST:PORT DELAY_MS\n");
    return 2;
  }
  sockaddr_in listen_at{}, target{};
  char* end = nullptr;
  double ms = std::strtod(argv[3], &end);
  if (!parse_host_port(argv[1], &listen_at) || !parse_host_port(argv[2], &target) || *end ||
      ms < 0 || ms > 60000) {
    std::fprintf(stderr, "delay-proxy: bad arguments '%s' '%s' '%s' (HOST:PORT HOST:PORT MS)\n",
                 argv[1], argv[2], argv[3]);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(l, reinterpret_cast<sockaddr*>(&listen_at), sizeof listen_at) != 0 || listen(l, 512) != 0) {
    std::fprintf(stderr, "delay-proxy: cannot listen on %s: %s\n", argv[1], std::strerror(errno));
    return 1;
  }
  std::printf("listening %s\n", argv[1]);
  std::fflush(stdout);
  Proxy p(l, target, std::chrono::microseconds(static_cast<long long>(ms * 1000)));
  p.run();
}
