#pragma once
/// `merlin run-workers`' options: made once where its command line is parsed
/// (merlin/cli/cmd_run_workers.cc), then handed as they are to the worker plan
/// (worker_planning.h), the fleet (FleetOptions::given) and, rendered by `run_workers_argv`, to
/// the command line of each worker's batch job, which the same parser reads back.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/broker/broker.h"
#include "merlin/core/broker/worker_registry.h"
#include "merlin/core/util/result.h"
#include "workers/process_executor.h"
#include "workers/worker.h"

namespace merlin::run {

/// `seconds` of a command-line option as a duration, rounded to the millisecond.
std::chrono::milliseconds kill_wait_of(double seconds);

/// A duration as the seconds a command-line option takes.
inline double seconds_of(std::chrono::milliseconds d) {
  return std::chrono::duration<double>(d).count();
}

struct RunWorkersOptions {
  std::string spec;                      ///< the study spec (absolute in a batch job's command)
  std::vector<std::string> vars;         ///< --vars KEY=VALUE
  std::vector<std::string> steps;        ///< --steps: only the queues of these steps
  std::vector<std::string> workers;      ///< --worker: only these workers (by name)
  std::string worker_args;               ///< Merlin's --worker-args: Celery flags for every worker
  std::optional<long long> concurrency;  ///< --concurrency, when given (checked by plan_workers)
  bool echo = false;                     ///< --echo: print what would start, start nothing
  bool exit_when_done = false;           ///< --exit-when-done
  bool here = false;          ///< --here: run the workers in this process whatever their batch type
  bool disable_logs = false;  ///< Merlin's --disable-logs: errors only, here and in the jobs
  double lease_seconds = seconds_of(kDefaultLease);  ///< --lease
  /// --dead-after: a worker whose heartbeat is this old is dead: its tasks go back at once
  double dead_after_seconds = seconds_of(kDefaultDeadAfter);
  double drain_margin = 60;  ///< --drain-margin: seconds before the allocation's end to drain
  int array = 0;             ///< --array: submit each worker job as an array of this many
  int max_deliveries = static_cast<int>(kDefaultMaxDeliveries);  ///< --max-deliveries
  double kill_wait = seconds_of(kDefaultKillWait);               ///< --kill-wait
  /// The process's --log-level (a global option, after --disable-logs), passed on to the
  /// batch jobs when not "info".
  std::string log_level = "info";

  std::chrono::milliseconds lease() const;
  std::chrono::milliseconds dead_after() const;
  std::chrono::milliseconds kill_wait_ms() const { return kill_wait_of(kill_wait); }
  /// --max-deliveries as WorkerOptions::max_deliveries (negative: 0, never).
  std::uint32_t delivery_limit() const;

  bool operator==(const RunWorkersOptions&) const = default;
};

/// The numbers the parser cannot check alone: kBadInput for a lease under 0.1 s, a
/// --dead-after between 0 and 3 s (workers beat every second; 0 means leases only), a
/// negative --drain-margin.
Result<void> check_options(const RunWorkersOptions& o);

/// The words after `merlin` of the command line that runs `o`: `run-workers SPEC`, then each
/// option that is set, in a fixed order (--worker, --here, --exit-when-done, --concurrency,
/// --vars, --steps, --lease, --dead-after unless the default, --drain-margin, --max-deliveries
/// and --kill-wait unless the default, --log-level unless info, then --worker-args, --echo,
/// --disable-logs, --array when set; --worker-args as one word, `--worker-args=ARGS`). Numbers of
/// seconds as printf's %g. `merlin run-workers` parses them back into `o`
/// (tests/unit/cli/run_workers_line_test.cc).
std::vector<std::string> run_workers_argv(const RunWorkersOptions& o);

}  // namespace merlin::run
