#pragma once
/// Helpers shared by the subcommands.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "merlin/run/run_workers_options.h"
#include "merlin/run/slots.h"
#include "merlin/core/util/process_info.h"
#include "merlin/core/util/result.h"

namespace CLI {
class App;
}

namespace merlin::cli {

/// `--vars A=1 B=2 spec.yaml`: a greedy --vars swallows the spec. Moves a trailing word
/// without '=' from `vars` to `spec` when `spec` is empty.
void reclaim_spec(std::vector<std::string>& vars, std::string& spec);

/// Adds `--kill-wait SECONDS` (how long a step may take to end after SIGTERM, when a second
/// interrupt ends the running steps, before SIGKILL) to a subcommand; `seconds` holds the
/// default. Negative values are refused by the parser (exit 2).
void add_kill_wait_option(CLI::App& sub, double& seconds);
/// Adds Merlin's `--task_server NAME`: "celery" (its only value) is accepted and changes
/// nothing, since there is no Celery here; any other value is refused by the parser (exit 2).
void add_task_server_option(CLI::App& sub);

/// The option's seconds as a duration (merlin/run/run_workers_options.h).
using run::kill_wait_of;

/// Slots (-j/--jobs, --concurrency) are the run layer's rule (merlin/run/slots.h).
using run::check_slots;
using run::kMaxSlots;

}  // namespace merlin::cli
