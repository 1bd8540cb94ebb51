// merlin-rank-env: puts a rank's numbers where training code looks for them, then becomes the
// rank's command (exec: no process is left between the launcher and the command).
//
// `$(LAUNCHER)` renders as "<launcher> <this program>", so every process the launcher starts
// passes through here (docs/training.md). What is set, from which launcher's variables, is
// decided in workers/rank_environment.h; here it is only applied.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "workers/rank_environment.h"

namespace {

constexpr const char* kUsage =
    "usage: merlin-rank-env <command> [args...]\n"
    "Sets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK, MASTER_ADDR, MASTER_PORT\n"
    "(and CUDA_VISIBLE_DEVICES with MERLIN_GPUS) from the launcher's variables, then runs the\n"
    "command in its place. $(LAUNCHER) puts it before a parallel step's command; see\n"
    "docs/training.md.\n";

std::optional<std::string> lookup(const std::string& name) {
  const char* v = getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

std::optional<std::string> first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  if (argc > 1 && strcmp(argv[1], "--") == 0) first = 2;
  if (argc <= first || strcmp(argv[first], "--help") == 0) {
    fputs(kUsage, argc <= first ? stderr : stdout);
    return argc <= first ? 2 : 0;
  }
  if (first == 1 && argv[1][0] == '-') {
    fprintf(stderr,
            "merlin-rank-env: '%s' is a launcher flag, not a command: $(LAUNCHER) ends with "
            "this program, so put the launcher's flags in the step's `slurm:`/`flux:`/`lsf:` "
            "key, or run the worker with MERLIN_RANK_ENV= (empty) to render $(LAUNCHER) "
            "without it (docs/training.md)\n",
            argv[1]);
    return 2;
  }
  auto env = merlin::rank_environment(lookup, first_line);
  for (const auto& w : env.warnings) fprintf(stderr, "merlin-rank-env: %s\n", w.c_str());
  for (const auto& [name, value] : env.set) setenv(name.c_str(), value.c_str(), 1);
  execvp(argv[first], argv + first);
  const int e = errno;
  fprintf(stderr, "merlin-rank-env: cannot run '%s': %s\n", argv[first], strerror(e));
  return e == ENOENT ? 127 : 126;
}
