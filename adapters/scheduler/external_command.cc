#include "adapters/scheduler/external_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "merlin/core/util/files.h"

namespace merlin {
namespace {

bool in_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    // An empty entry is the current directory.
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string slurp(const std::string& path) {
  auto text = files::read(path);
  return text ? *text : std::string();
}

// A temporary file, removed when this goes out of scope.
struct TempFile {
  std::string path;
  TempFile() {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/merlin-cmd.XXXXXX";
    int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd >= 0) {
      ::close(fd);
      path = pattern;
    }
  }
  ~TempFile() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

}  // namespace

Result<CommandOutput> run_external(const std::vector<std::string>& argv,
                                   const std::optional<std::string>& stdin_path,
                                   const EnvOverrides& env) {
  if (argv.empty()) return Error::runtime("run_external: no program");
  if (!in_path(argv[0])) return Error::runtime(argv[0] + ": not found in PATH");
  TempFile out, err;
  if (out.path.empty() || err.path.empty())
    return Error::runtime(std::string("cannot make a temporary file: ") + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, stdin_path ? stdin_path->c_str() : "/dev/null", O_RDONLY,
                                   0);
  posix_spawn_file_actions_addopen(&fa, 1, out.path.c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err.path.c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);  // no broker sockets or files of ours
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> envs = environment_with(env);
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return Error::runtime("cannot start " + argv[0] + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return Error::runtime("waiting for " + argv[0] + ": " + std::strerror(errno));
  }
  CommandOutput o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = slurp(out.path);
  o.err = slurp(err.path);
  return o;
}

}  // namespace merlin
