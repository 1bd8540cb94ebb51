#pragma once
/// Merlin specs carry Celery worker flags in `merlin.resources.workers.NAME.args`
/// ("-l INFO --concurrency 4 --prefetch-multiplier 1"). Only the concurrency means something
/// here (the worker's slots); the rest is accepted and reported once as ignored.
#include <optional>
#include <string>
#include <vector>

#include "merlin/util/result.h"

namespace merlin::cli {

struct CeleryArgs {
  std::optional<int> concurrency;    ///< --concurrency N, --concurrency=N, -c N, -cN
  std::vector<std::string> ignored;  ///< every other word, in order
};

/// Splits on white space (no quoting: Celery flags have none). A concurrency that is not a
/// whole number from 1 to kMaxSlots (cli_util.h) is bad input naming it.
Result<CeleryArgs> parse_celery_args(const std::string& args);

}  // namespace merlin::cli
