#pragma once
/// Where a step with `scratch:` runs on a node (docs/staging.md): the scratch root chosen for
/// `auto` or expanded from a path, and the study's directory under it. Pure apart from the
/// injected environment lookup.
#include <string>

#include "merlin/util/path_expand.h"

namespace merlin {

/// What the node offers for `scratch: auto`, besides its environment.
struct ScratchSettings {
  EnvLookup env;            ///< the node's environment; null = this process's
  std::string app_scratch;  ///< app.yaml's top-level `scratch:` ("" = none)
};

/// The scratch root for a step's `scratch:` value (study tokens already substituted).
/// `auto`: env MERLIN_SCRATCH, then settings.app_scratch, then env TMPDIR, then /tmp (the
/// first one set and not empty). Any other value: `~`, `$VAR` and `${VAR}` expanded from the
/// node's environment (an unset variable stays as written, and the run then fails naming it).
std::string scratch_root(const std::string& value, const ScratchSettings& settings);

/// `<root>/merlin-<workspace's base name>`: one directory per study on the node, so two
/// studies (or two runs of one spec) never share scratch.
std::string study_scratch_dir(const std::string& root, const std::string& workspace);

}  // namespace merlin
