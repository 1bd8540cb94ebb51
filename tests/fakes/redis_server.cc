#include "tests/fakes/redis_server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "tests/fakes/loopback.h"

namespace merlin::testing {
namespace {

namespace fs = std::filesystem;

bool ping(int port) {
  int fd = connect_loopback(port, 200);
  if (fd < 0) return false;
  const char req[] = "*1\r\n$4\r\nPING\r\n";
  char buf[64] = {};
  bool ok = ::write(fd, req, sizeof req - 1) == static_cast<ssize_t>(sizeof req - 1) &&
            ::read(fd, buf, sizeof buf - 1) > 0 &&
            std::string(buf).rfind("+PONG", 0) == 0;  // "-LOADING" while replaying the AOF
  ::close(fd);
  return ok;
}

}  // namespace

std::string RedisServer::find_binary() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/usr/local/bin");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    auto p = fs::path(d.empty() ? "." : d) / "redis-server";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

RedisServer::~RedisServer() {
  stop();
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string RedisServer::start() {
  binary_ = find_binary();
  if (binary_.empty()) return kMissingReason;
  std::string tmpl = (fs::temp_directory_path() / "merlin-redis-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return "cannot create a temp dir for redis-server";
  dir_ = tmpl;
  std::string why;
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = free_port();
    why = launch();
    if (why.empty()) return "";
  }
  return why;
}

std::string RedisServer::launch() {
  auto log = dir_ + "/redis.log";
  auto port = std::to_string(port_);
  pid_ = ::fork();
  if (pid_ < 0) return "fork failed";
  if (pid_ == 0) {
    ::setsid();
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execl(binary_.c_str(), binary_.c_str(), "--bind", "127.0.0.1", "--port", port.c_str(),
            "--dir", dir_.c_str(), "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
            "--daemonize", "no", "--protected-mode", "yes", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (wait_ready(10'000)) return "";
  stop(true);
  return "redis-server did not answer PING on port " + port + " (see " + log + ")";
}

bool RedisServer::wait_ready(int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {  // exited: port taken, bad flag...
      pid_ = -1;
      return false;
    }
    if (ping(port_)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

void RedisServer::pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void RedisServer::resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

void RedisServer::stop(bool hard) {
  if (pid_ <= 0) return;
  ::kill(pid_, hard ? SIGKILL : SIGTERM);
  ::kill(pid_, SIGCONT);  // a paused server would never handle the SIGTERM
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string RedisServer::restart(bool hard) {
  stop(hard);
  return launch();
}

}  // namespace merlin::testing
