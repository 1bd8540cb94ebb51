#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/example_dirs.h"
#include "merlin/core/util/files.h"

namespace merlin::cli {
namespace fs = std::filesystem;
namespace {

struct ExampleArgs {
  std::string name;
  std::string path;  ///< -p: the destination directory itself; empty: ./NAME
};

// The one-line description of an example: its README's title after "# <name>: ".
std::string description_of(const fs::path& dir) {
  auto text = files::read((dir / "README.md").string());
  if (!text) return "";
  std::string first = text->substr(0, text->find('\n'));
  auto colon = first.find(": ");
  return colon == std::string::npos ? "" : first.substr(colon + 2);
}

// Every example directory, sorted by name, with its description.
std::vector<std::pair<std::string, std::string>> list_examples(const fs::path& root) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory()) out.emplace_back(e.path().filename().string(), description_of(e.path()));
  std::sort(out.begin(), out.end());
  return out;
}

// The examples Merlin ships as a single spec file, which its `merlin example NAME` copies into
// the current directory as NAME.yaml instead of making a directory (its integration suite
// then runs `merlin run simple_chain.yaml`).
bool copied_as_one_spec(const std::string& name) { return name == "simple_chain"; }

int example(const ExampleArgs& a) {
  fs::path root = find_examples_dir();
  if (root.empty()) {
    std::string looked;
    for (const auto& p : example_dir_candidates(build_facts())) looked += " " + p.string();
    return report_error(Error::runtime("no bundled examples found (looked in:" + looked +
                                       "); reinstall merlin with its share/merlin/examples"));
  }
  if (a.name.empty() || a.name == "list") {
    auto list = list_examples(root);
    std::size_t width = 0;
    for (const auto& [name, what] : list) width = std::max(width, name.size());
    for (const auto& [name, what] : list)
      std::printf("%-*s  %s\n", static_cast<int>(width), name.c_str(), what.c_str());
    return kExitOk;
  }
  fs::path from = root / a.name;
  if (!fs::is_directory(from))
    return report_error(
        Error::bad_input("example '" + a.name + "' not found (see `merlin example list`)"));
  if (copied_as_one_spec(a.name)) {
    // Merlin's: the spec alone, into the current directory (or -p PATH).
    fs::path to = (a.path.empty() ? fs::path(".") : fs::path(a.path)) / (a.name + ".yaml");
    if (fs::exists(to))
      return report_error(Error::bad_input(to.string() + " exists already; remove it or copy "
                                                         "into another directory with -p PATH"));
    std::error_code ec;
    fs::create_directories(to.parent_path(), ec);
    fs::copy_file(from / (a.name + ".yaml"), to, ec);
    if (ec)
      return report_error(Error::runtime("cannot copy to " + to.string() + ": " + ec.message()));
    std::printf("%s\n", to.lexically_normal().c_str());
    return kExitOk;
  }
  // As Merlin's: -p PATH is the new directory itself (the example's files go in it).
  fs::path to = a.path.empty() ? fs::path(a.name) : fs::path(a.path);
  if (fs::exists(to))
    return report_error(Error::bad_input(to.string() + " exists already; remove it or name a new "
                                                       "directory with -p PATH"));
  std::error_code ec;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::skip_existing, ec);
  if (ec)
    return report_error(Error::runtime("cannot copy to " + to.string() + ": " + ec.message()));
  std::printf("%s\n", to.c_str());
  return kExitOk;
}

}  // namespace

Command example_command() {
  return {"example", "List the bundled examples, or copy one here: merlin example hello",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<ExampleArgs>();
            offer(sub.add_option("name", a->name, "Example name, or 'list'"), Completion::kNone);
            sub.add_option("-p,--path", a->path,
                           "The new directory to copy it into, as in Merlin (default: ./NAME)");
            return [a] { return example(*a); };
          }};
}

}  // namespace merlin::cli
