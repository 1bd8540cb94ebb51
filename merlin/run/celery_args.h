#pragma once
/// Merlin specs carry Celery worker flags in `merlin.resources.workers.NAME.args`
/// ("-l INFO --concurrency 4 --prefetch-multiplier 1"). Only the concurrency means something
/// here (the worker's slots). Celery's common tuning flags (log level, prefetch, -O fair,
/// hostname, events, gossip/mingle/heartbeat, max tasks or memory per child) change nothing a
/// study computes: accepted silently. Flags that would change what a Celery worker does and
/// are not done here (-Q, --autoscale, -P, time limits, ...) and words not known are listed,
/// for one warning.
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::run {

struct CeleryArgs {
  std::optional<int> concurrency;  ///< --concurrency N, --concurrency=N, -c N, -cN
  /// The flags (with their values) that would change a Celery worker's behaviour and are
  /// ignored here, and any word not known, in order; empty when all is well.
  std::vector<std::string> ignored;
};

/// Splits on white space (no quoting: Celery flags have none). A concurrency that is not a
/// whole number from 1 to kMaxSlots (slots.h) is bad input naming it.
Result<CeleryArgs> parse_celery_args(const std::string& args);

}  // namespace merlin::run
