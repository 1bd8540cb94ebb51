#include <CLI/CLI.hpp>

#include <cstdio>

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/command.h"
#include "merlin/run/dist_study.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/version.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

int info(const BrokerFlags& flags) {
  std::printf("merlin %s\n", merlin_version());
  std::string config = app_config_path();
  std::printf("app config:  %s%s\n", config.c_str(), files::exists(config) ? "" : " (none)");
  auto loc = resolve_broker(flags);
  if (!loc) return report_error(loc.error());
  std::printf("broker:      %s (from %s)\n", loc->display().c_str(), loc->source.name.c_str());
  if (loc->results)
    std::printf("results:     %s (from %s)\n", loc->results->display().c_str(),
                loc->results->source.name.c_str());
  auto backend = open_backend(*loc);
  if (!backend) return report_error(backend.error());
  auto v = (*backend)->server_version();
  if (!v) {
    std::printf("connection:  FAILED: %s\n", v.error().message.c_str());
    // Nothing configured (no app.yaml, variable or flag: the default address): a report of
    // that, exit 0 as Merlin's info, with the way to configure one. A broker that was
    // configured and fails is 1; a setting refused before connecting (a key file others can
    // read) is bad input, as for every other command.
    if (loc->source.name == "default" && v.error().code != ErrorCode::kBadInput) {
      std::printf("             no broker is configured: `merlin server init && merlin server "
                  "start` runs a Redis of your own, `merlin config create` writes an app.yaml "
                  "to edit, or set MERLIN_BROKER_URL\n");
      return kExitOk;
    }
    return exit_code_of(v.error());
  }
  std::printf("connection:  ok (%s)\n", v->c_str());
  return kExitOk;
}

}  // namespace

Command info_command() {
  return {"info", "Show the broker configuration and check the connection to it",
          [](CLI::App& sub) -> std::function<int()> {
            auto flags = std::make_shared<BrokerFlags>();
            add_broker_flags(sub, *flags);
            return [flags] { return info(*flags); };
          }};
}

}  // namespace merlin::cli
