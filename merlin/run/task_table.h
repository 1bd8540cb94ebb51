#pragma once
/// `merlin detailed-status`'s report table (docs/json-output.md): one row per task.
#include <vector>

#include "merlin/core/report/table.h"
#include "merlin/run/task_details.h"

namespace merlin::run {

/// step, task, status (strings), return_code (string, null until the task ends), elapsed_time
/// (whole seconds from its first start, retries included, to its end; null until it ends), run_time
/// (seconds, to the microsecond; null until it ends), restarts (integer), queue (string),
/// worker (string, null for a local run or before a worker took it), started and ended
/// (seconds since the epoch, null when unknown; shown as local times in text and CSV).
/// `people`: the table is for `--format table`, run times shown as durations ("1m02s").
report::Table task_table(const std::vector<TaskRow>& tasks, bool people);

}  // namespace merlin::run
