#pragma once
/// The broker `merlin status` and `detailed-status` read a queued study from: the configured
/// one (broker_config.h) checked against the one the workspace records, as
/// run/status_source.h decides, with the real backends (backends.h).
#include <string>

#include "merlin/cli/broker_config.h"
#include "merlin/run/status_source.h"

namespace merlin::cli {

/// open_status_source for the broker workspace `workspace` with the broker `flags` and the
/// environment resolve to. Errors: those of resolve_broker, read_run_record and
/// open_status_source.
Result<run::StatusSource> open_status_source_of(const std::string& workspace,
                                                const BrokerFlags& flags);

}  // namespace merlin::cli
