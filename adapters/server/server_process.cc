#include "adapters/server/server_process.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "merlin/core/util/files.h"
#include "merlin/core/util/process_info.h"

extern char** environ;

namespace merlin::server {
namespace {

Error system_error(const std::string& what, const std::string& path) {
  return Error::runtime("cannot " + what + " " + path + ": " + std::strerror(errno));
}

bool executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The server starts in its own directory: a relative program path would not be found there.
std::string absolute(const std::string& path) {
  return path.empty() || path[0] == '/' ? path : current_dir() + "/" + path;
}

}  // namespace

// Whether `pid` is a live redis-server process (a zombie child of ours counts as gone).
bool redis_alive(long long pid) {
  if (pid <= 0) return false;
  int status = 0;
  if (::waitpid(static_cast<pid_t>(pid), &status, WNOHANG) == pid) return false;  // ours, reaped
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  auto comm = files::read("/proc/" + std::to_string(pid) + "/comm");
  if (!comm) return false;
  if (comm->rfind("redis-server", 0) != 0) return false;  // the pid went to another program
  auto stat = files::read("/proc/" + std::to_string(pid) + "/stat");
  if (stat) {
    auto close = stat->rfind(')');
    if (close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] == 'Z')
      return false;
  }
  return true;
}

// Whether the redis-server `r.pid` is the one `start` recorded: its command line is Redis's
// process title ("redis-server 127.0.0.1:6379") with the recorded address, or (titles off)
// names our redis.conf. A pid reused by another Redis is not ours to ask or stop.
bool started_here(const ProcessRecord& r, const std::string& conf_path) {
  auto cmdline = files::read("/proc/" + std::to_string(r.pid) + "/cmdline");
  if (!cmdline) return false;
  for (auto& c : *cmdline)
    if (c == '\0') c = ' ';
  return cmdline->find(r.bind + ":" + std::to_string(r.port)) != std::string::npos ||
         cmdline->find(conf_path) != std::string::npos;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

// Whether a listener could bind `ip`:`port` now: "" if so, else why not (taken, not this
// host's address, privileged). Redis sets SO_REUSEADDR too, so a port held only by TIME_WAIT
// connections counts as free, as it is for Redis.
Result<std::string> check_port_free(const std::string& ip, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return system_error("open", "a socket");
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) {
    ::close(fd);
    return Error::bad_input("redis.conf binds '" + ip +
                            "', which is no IPv4 address; set one with `merlin server config "
                            "--ipaddress 127.0.0.1`");
  }
  int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int err = errno;
  ::close(fd);
  if (rc == 0) return std::string();
  const std::string where = ip + ":" + std::to_string(port);
  if (err == EADDRINUSE)
    return "port " + std::to_string(port) + " is in use (" + where +
           " is taken by another program): choose a free one with `merlin server config "
           "--port N`, then `merlin server start`";
  if (err == EADDRNOTAVAIL)
    return ip +
           " is no address of this host: set another with `merlin server config "
           "--ipaddress IP`";
  if (err == EACCES)
    return "port " + std::to_string(port) +
           " needs privileges to listen on: choose one above 1023 with `merlin server config "
           "--port N`";
  errno = err;
  return system_error("listen on", where);
}

// The end of redis.log after `offset`: what the server said before it exited.
std::string log_tail(const std::string& path, std::size_t offset) {
  auto text = files::read(path);
  if (!text || text->size() <= offset) return "";
  std::string tail = text->substr(offset);
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  // The last few lines are the reason; the banner before them is not.
  std::size_t cut = tail.size();
  for (int lines = 0; lines < 6 && cut != std::string::npos && cut > 0; ++lines)
    cut = tail.rfind('\n', cut - 1);
  if (cut != std::string::npos && cut < tail.size()) tail = tail.substr(cut + 1);
  return tail;
}

// Starts `argv` in `dir`, in a session of its own (no terminal, no signals from the caller's
// group), stdin from /dev/null, stdout and stderr appended to `log`, with LC_ALL=C (Redis refuses
// to start under a locale it cannot set). Descriptors this process holds open without
// close-on-exec (inherited ones) are closed in the child.
Result<pid_t> spawn_server(const std::vector<std::string>& argv, const std::string& log,
                           const std::string& dir) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  // In `dir`, not the caller's working directory (Redis then moves into its data directory, so
  // neither a workspace nor a mount to be unmounted is held busy for its lifetime).
  posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());
  if (DIR* d = ::opendir("/proc/self/fd")) {
    std::vector<int> open_fds;
    while (dirent* e = ::readdir(d)) {
      int fd = std::atoi(e->d_name);
      if (fd > 2 && fd != ::dirfd(d)) open_fds.push_back(fd);
    }
    ::closedir(d);
    for (int fd : open_fds) {
      int flags = ::fcntl(fd, F_GETFD);
      if (flags >= 0 && !(flags & FD_CLOEXEC)) posix_spawn_file_actions_addclose(&fa, fd);
    }
  }
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LC_ALL=", 7) != 0) env.emplace_back(*e);
  env.emplace_back("LC_ALL=C");
  std::vector<char*> envp, args;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, args[0], &fa, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    errno = rc;
    return system_error("start", argv[0]);
  }
  return pid;
}

Result<std::string> find_redis_server() {
  if (const char* given = std::getenv("MERLIN_REDIS_SERVER"); given && *given) {
    if (executable(given)) return absolute(given);
    return Error::runtime(std::string("MERLIN_REDIS_SERVER names ") + given +
                          ", which is no executable file; install redis-server with `sudo "
                          "apt-get install -y redis-server`, or unset it to use the one on PATH");
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t colon = dirs.find(':', start);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/redis-server";
    if (executable(candidate)) return absolute(candidate);
    start = colon + 1;
  }
  return Error::runtime(
      "redis-server not found on PATH: merlin server runs Redis's own server program. Install "
      "it with `sudo apt-get install -y redis-server` (Debian/Ubuntu; `dnf install redis` on "
      "RHEL), or set MERLIN_REDIS_SERVER to its path");
}

}  // namespace merlin::server
