#pragma once
/// Which workers one `merlin run-workers` runs, decided from the spec and its options alone:
/// the `merlin.resources.workers` entries chosen by --worker and --steps, their queues and
/// slots, and which of them may start on this host (`machines:`).
#include <string>
#include <vector>

#include "merlin/run/run_workers_options.h"
#include "merlin/run/worker_fleet.h"
#include "merlin/core/spec/study_spec.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// The workers `o` asks for, each with the queues of its chosen steps (workers left with none
/// are dropped) and its slots: --concurrency, else --worker-args' --concurrency, else the
/// worker's own Celery args, else `cores`. Ids are "<host>.<pid>.<name>". Celery flags that
/// change nothing here are logged once as a warning. Errors (kBadInput): a --steps or
/// --worker naming nothing in the spec, slots out of range, unreadable Celery args, no worker
/// left.
Result<std::vector<WorkerPlan>> plan_workers(const spec::StudySpec& spec,
                                             const RunWorkersOptions& o, const std::string& host,
                                             int pid, int cores);

/// Merlin's `machines:` — a worker that names machines starts only on a host whose name
/// contains one of them (checked where the workers run: here, or on each node of a job). The
/// plans of `host`, with a warning for each left out.
std::vector<WorkerPlan> for_this_machine(const spec::StudySpec& spec, std::vector<WorkerPlan> plans,
                                         const std::string& host);

}  // namespace merlin::run
