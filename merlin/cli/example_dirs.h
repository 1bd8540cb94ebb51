#pragma once
/// Where `merlin example` finds the bundled examples, so that an installed merlin works from any
/// prefix (relocatable: nothing of the build machine's paths is needed once installed).
#include <filesystem>
#include <vector>

namespace merlin::cli {

/// What the search depends on; `build_facts()` gives the values of this binary.
struct ExampleDirFacts {
  std::filesystem::path exe_dir;          ///< directory of the running merlin (/proc/self/exe)
  std::filesystem::path installed_rel;    ///< examples relative to exe_dir once installed
                                          ///< (`../share/merlin/examples` for bin/ and share/)
  std::filesystem::path build_dir;        ///< the build tree this binary was built in
  std::filesystem::path source_examples;  ///< the source tree's examples/ at build time
};

/// The directories to try, best first: `exe_dir / installed_rel` (an installed merlin, from any
/// prefix), then the source tree's examples only when `exe_dir` *is* the build tree (a merlin
/// run from where it was built). An installed or copied binary never looks into the source
/// tree it was built from. Pure: touches the file system only to compare exe_dir with
/// build_dir (`equivalent`, so symlinked paths compare equal).
std::vector<std::filesystem::path> example_dir_candidates(const ExampleDirFacts& facts);

/// The facts of this binary: its own directory and the paths CMake gave at build time.
ExampleDirFacts build_facts();

/// The first existing directory of `example_dir_candidates(build_facts())`, or empty.
std::filesystem::path find_examples_dir();

}  // namespace merlin::cli
