// Loads a study spec with merlin's public API (merlin::core) and prints its name and step names,
// one per line: what a tool built on merlin's spec layer looks like.
#include <cstdio>

#include "merlin/core/spec/spec_loader.h"
#include "merlin/core/util/version.h"
#include "step_count.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: list_steps SPEC.yaml\n");
    return 2;
  }
  auto loaded = merlin::spec::load_spec(argv[1]);
  if (!loaded) {
    std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
    return 1;
  }
  std::printf("merlin %s\n", merlin::merlin_version());
  std::printf("study %s\n", loaded->spec.name.c_str());
  for (const auto& step : loaded->spec.steps) std::printf("step %s\n", step.name.c_str());
  std::printf("steps %d (through a shared library)\n", consumer_step_count(argv[1]));
  return 0;
}
