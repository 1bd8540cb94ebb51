#pragma once
/// Where a step with `scratch:` runs on a node (docs/staging.md): the scratch root chosen for
/// `auto` or expanded from a path, and the study's directory under it. Pure apart from the
/// injected environment lookup.
#include <string>

#include "merlin/core/util/path_expand.h"

namespace merlin {

/// What the node offers for `scratch: auto`, besides its environment.
struct ScratchSettings {
  EnvLookup env;            ///< the node's environment; null = this process's
  std::string app_scratch;  ///< app.yaml's top-level `scratch:` ("" = none)
  long uid = -1;            ///< whose private dir (user_scratch_dir); -1 = this process's euid
};

/// The scratch root for a step's `scratch:` value (study tokens already substituted).
/// `auto`: env MERLIN_SCRATCH, then settings.app_scratch, then env TMPDIR, then /tmp (the
/// first one set and not empty). Any other value: `~`, `$VAR` and `${VAR}` expanded from the
/// node's environment (an unset variable stays as written, and the run then fails naming it).
std::string scratch_root(const std::string& value, const ScratchSettings& settings);

/// `<root>/merlin-<uid>`: the user's private directory under a scratch root (0700, checked
/// before use: workers/scratch_dir.h). Scratch roots such as /tmp are shared by every user of
/// the node; nothing of a study is made directly in them. uid -1 = this process's euid.
std::string user_scratch_dir(const std::string& root, long uid = -1);

/// `<user dir>/merlin-<workspace's base name>`: one directory per study on the node, so two
/// studies (or two runs of one spec) never share scratch. The name is predictable on
/// purpose: every process of the study on the node (slots, several `run-workers`, a restart)
/// finds the same one without a shared record, and only the user can create entries in the
/// private `user_dir` (docs/security.md §4).
std::string study_scratch_dir(const std::string& user_dir, const std::string& workspace);

}  // namespace merlin
