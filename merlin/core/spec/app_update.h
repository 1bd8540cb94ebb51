#pragma once
/// `merlin config update-broker` / `update-backend`: one block of an app.yaml rewritten with
/// new settings, as Merlin 1.13 does it (its MerlinConfigManager): the file is read as YAML,
/// the block's keys given are set (others kept), and the whole file is written out again
/// (comments are not kept, as in Merlin, whose yaml.dump drops them too).
#include <string>
#include <string_view>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::spec {

struct AppSetting {
  std::string key;
  std::string value;
  bool integer = false;  ///< written as a number (port, db_num), else as a string
};

/// `text` (the app.yaml at `path`) with the top-level map `block` ("broker",
/// "results_backend"; made when missing) given `settings`, in order. kBadInput naming `path`
/// when the text is not YAML, its top level is not a map (an empty file counts as an empty
/// map), `block` is there but not a map, or an integer setting is not a whole number.
Result<std::string> update_app_block(std::string_view text, const std::string& path,
                                     const std::string& block,
                                     const std::vector<AppSetting>& settings);

}  // namespace merlin::spec
