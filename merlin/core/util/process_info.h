#pragma once
/// What a command needs to know of its own process: where it runs, when, on how many cores,
/// from which binary; and the `K=V` overrides of `--vars`.
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin {

std::string current_dir();
/// `s` as one shell word: as it is when plain, else in single quotes.
std::string shell_quote(const std::string& s);
/// This merlin binary's absolute path (/proc/self/exe), for commands that start it again.
std::string self_exe();
/// `name` in the directory of this binary (self_exe()): where merlin's helper programs
/// (merlin-guard, merlin-rank-env) are installed. Just `name` when that directory is unknown.
std::string beside_self(const std::string& name);
/// `path_var` (a PATH value) with `dir` appended unless one of its entries already is `dir`.
std::string path_with(const std::string& path_var, const std::string& dir);
/// Appends the directory of this binary to the process's PATH (see path_with), so that the
/// commands it starts (steps, `generate.cmd`, batch scripts) find `merlin` — `merlin sample`,
/// `merlin collect` — even when it was started by a full path. Entries already in PATH come
/// first: a `merlin` there still wins. Call once at start, before any thread.
void put_self_on_path();
/// Appends merlin's python directory (`<bin>/python` in a build tree, `<bin>/../share/merlin/
/// python` installed; the first that exists) to PYTHONPATH (see path_with), so that steps
/// `import merlin_dataset` (docs/training.md). Call once at start, before any thread.
void put_python_on_path();
/// Seconds since the epoch, now.
long long now_epoch();
/// Number of cores (at least 1).
int core_count();

/// Variables set for a child process on top of this process's environment, as (name, value).
using EnvOverrides = std::vector<std::pair<std::string, std::string>>;
/// This process's environment ("NAME=value", as `environ`) with `set` added, replacing
/// variables of the same name: what a child started with `set` sees. Our own environment is
/// left alone.
std::vector<std::string> environment_with(const EnvOverrides& set);

/// Parses "K=V" strings of --vars; an entry without '=' is bad input.
Result<std::vector<std::pair<std::string, std::string>>> parse_vars(
    const std::vector<std::string>& items);

}  // namespace merlin
