#pragma once
/// One app.yaml server block ("broker" or "results_backend"), already parsed, translated into
/// a location as Merlin reads it: pure, but for what `AppServerEdge` answers (the home
/// directory, the password file), which the caller injects.
#include <functional>
#include <string>
#include <vector>

#include "merlin/core/broker/broker_location.h"
#include "merlin/core/broker/broker_provider.h"
#include "merlin/core/spec/app_config.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// What the translation asks of the world outside the block.
struct AppServerEdge {
  /// A path with its leading `~` expanded.
  std::function<std::string(const std::string& path)> expand_home;
  /// The password of a block's `password:`, `written` its text (never a placeholder), `at`
  /// "file:line:col: " and `key` ("broker.password") for messages: the first line of the file
  /// it names, or (with a warning) the value itself. Called once, in the order of the keys.
  std::function<Result<std::string>(const std::string& at, const std::string& key,
                                    const std::string& written)>
      password;
};

/// "file:line:col: " for a value of `file` ("file: " when its place is not known).
std::string app_value_at(const std::string& file, const spec::AppValue& v);

/// `b` (the block `block` of `file`) as a location, its source the file, as Merlin reads it
/// (run/app_broker.h says how); `results`: the block names a results backend, so no broker
/// that needs one itself. Keys the location does not use are appended to `unused`, in the
/// order read. Errors (kBadInput) name `file:line:col` and the key; never quote a password.
Result<BrokerLocation> read_app_server(const std::string& file, const spec::AppServer& b,
                                       const std::string& block, bool results,
                                       const BrokerProviders& providers, const AppServerEdge& edge,
                                       std::vector<spec::IgnoredKey>& unused);

}  // namespace merlin::run
