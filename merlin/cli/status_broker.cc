#include "merlin/cli/status_broker.h"

#include "merlin/cli/backends.h"
#include "merlin/run/run_record.h"

namespace merlin::cli {

Result<run::StatusSource> open_status_source_of(const std::string& workspace,
                                                const BrokerFlags& flags) {
  auto record = run::read_run_record(workspace);
  if (!record) return record.error();
  auto loc = resolve_broker(flags);
  if (!loc) return loc.error();
  return run::open_status_source(workspace, *record, *loc, broker_providers(),
                                 [](const BrokerLocation& l) { return open_backend(l); });
}

}  // namespace merlin::cli
