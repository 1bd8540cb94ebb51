#include "tests/fakes/rabbitmq_server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/fakes/loopback.h"

namespace merlin::testing {
namespace {

namespace fs = std::filesystem;

// Sends AMQP 0-9-1's protocol header; a ready broker answers with a method frame (type 1:
// Connection.Start). A booting one refuses the connection or closes it.
bool amqp_answers(int port) {
  int fd = connect_loopback(port, 500);
  if (fd < 0) return false;
  const unsigned char header[] = {'A', 'M', 'Q', 'P', 0, 0, 9, 1};
  unsigned char frame[8] = {};
  bool ok = ::write(fd, header, sizeof header) == static_cast<ssize_t>(sizeof header) &&
            ::read(fd, frame, sizeof frame) > 0 && frame[0] == 1;
  ::close(fd);
  return ok;
}

std::string tail_of(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string out;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i)
    out += all[i] + "\n";
  return out;
}

}  // namespace

std::string RabbitServer::find_binary() {
  const std::string p = "/usr/lib/rabbitmq/bin/rabbitmq-server";
  return ::access(p.c_str(), X_OK) == 0 ? p : "";
}

RabbitServer::~RabbitServer() {
  stop(true);
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string RabbitServer::url() const {
  return "amqp://guest:guest@127.0.0.1:" + std::to_string(port_) + "/";
}

std::string RabbitServer::start() {
  binary_ = find_binary();
  if (binary_.empty()) return kMissingReason;
  std::string tmpl = (fs::temp_directory_path() / "merlin-rabbit-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return "cannot create a temp dir for rabbitmq-server";
  dir_ = tmpl;
  for (const char* sub : {"/mnesia", "/log", "/home"}) fs::create_directories(dir_ + sub);
  node_ = "merlin_" + fs::path(dir_).filename().string().substr(14) + "@localhost";
  std::ofstream(dir_ + "/enabled_plugins") << "[].\n";
  // Another test's server may take a port between free_port() and the node's start (Erlang then
  // stops with 'nodistribution'): a few tries, each on fresh ports and a fresh database.
  std::string why;
  for (int attempt = 0; attempt < 4; ++attempt) {
    port_ = free_port();
    dist_port_ = free_port();
    epmd_port_ = free_port();
    std::ofstream(dir_ + "/rabbitmq.conf")
        << "listeners.tcp.default = 127.0.0.1:" << port_ << "\n"
        << "loopback_users.guest = true\n";
    std::error_code ec;
    fs::remove_all(dir_ + "/mnesia", ec);
    fs::create_directories(dir_ + "/mnesia");
    why = launch();
    if (why.empty()) return why;
  }
  return why;
}

std::string RabbitServer::launch() {
  const std::string log = dir_ + "/console.log";
  pid_ = ::fork();
  if (pid_ < 0) return "fork failed";
  if (pid_ == 0) {
    ::setsid();
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    auto set = [](const char* k, const std::string& v) { ::setenv(k, v.c_str(), 1); };
    set("HOME", dir_ + "/home");
    set("RABBITMQ_NODENAME", node_);
    set("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1");
    set("RABBITMQ_NODE_PORT", std::to_string(port_));
    set("RABBITMQ_DIST_PORT", std::to_string(dist_port_));
    set("ERL_EPMD_PORT", std::to_string(epmd_port_));
    set("ERL_EPMD_ADDRESS", "127.0.0.1");
    set("RABBITMQ_MNESIA_BASE", dir_ + "/mnesia");
    set("RABBITMQ_LOG_BASE", dir_ + "/log");
    set("RABBITMQ_CONFIG_FILE", dir_ + "/rabbitmq");
    set("RABBITMQ_ENABLED_PLUGINS_FILE", dir_ + "/enabled_plugins");
    set("RABBITMQ_PID_FILE", dir_ + "/pid");
    ::execl(binary_.c_str(), binary_.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (wait_ready(60'000)) return "";
  stop(true);
  return "rabbitmq-server did not answer on port " + std::to_string(port_) + "; " + log + ":\n" +
         tail_of(log, 15);
}

bool RabbitServer::wait_ready(int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    if (amqp_answers(port_)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

void RabbitServer::stop(bool hard) {
  if (pid_ <= 0) return;
  // The node is the session this process leads (the script execs erl, which starts epmd
  // daemonised outside it); signal the whole group, then wait for the leader.
  ::kill(-pid_, hard ? SIGKILL : SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  ::kill(-pid_, SIGKILL);  // helpers of the node still in its group
  pid_ = -1;
  // Our epmd (its own port, daemonised outside the group): ask it to leave. It refuses while
  // the dead node is still registered, which lasts until it notices the node's socket closed.
  std::string epmd = "ERL_EPMD_PORT=" + std::to_string(epmd_port_) +
                     " epmd -kill 2>&1 | grep -qi -e killed -e 'cannot connect'";
  for (int i = 0; i < 50 && std::system(epmd.c_str()) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

std::string RabbitServer::restart(bool hard) {
  stop(hard);
  return launch();
}

}  // namespace merlin::testing
