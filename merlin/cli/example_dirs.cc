#include "merlin/cli/example_dirs.h"

#include <system_error>

#include "merlin/core/util/process_info.h"

// Given by CMake (merlin_cli's compile definitions); the defaults keep a hand build working.
#ifndef MERLIN_EXAMPLES_RELATIVE
#define MERLIN_EXAMPLES_RELATIVE "../share/merlin/examples"
#endif
#ifndef MERLIN_BUILD_DIR
#define MERLIN_BUILD_DIR ""
#endif
#ifndef MERLIN_EXAMPLES_DIR
#define MERLIN_EXAMPLES_DIR ""
#endif

namespace merlin::cli {
namespace fs = std::filesystem;

std::vector<fs::path> example_dir_candidates(const ExampleDirFacts& f) {
  std::vector<fs::path> out;
  if (!f.exe_dir.empty() && !f.installed_rel.empty())
    out.push_back((f.exe_dir / f.installed_rel).lexically_normal());
  std::error_code ec;
  if (!f.exe_dir.empty() && !f.build_dir.empty() && !f.source_examples.empty() &&
      fs::equivalent(f.exe_dir, f.build_dir, ec) && !ec)
    out.push_back(f.source_examples);
  return out;
}

ExampleDirFacts build_facts() {
  ExampleDirFacts f;
  const std::string exe = self_exe();
  if (!exe.empty()) f.exe_dir = fs::path(exe).parent_path();
  f.installed_rel = MERLIN_EXAMPLES_RELATIVE;
  f.build_dir = MERLIN_BUILD_DIR;
  f.source_examples = MERLIN_EXAMPLES_DIR;
  return f;
}

fs::path find_examples_dir() {
  for (const auto& p : example_dir_candidates(build_facts()))
    if (std::error_code ec; fs::is_directory(p, ec)) return p;
  return {};
}

}  // namespace merlin::cli
