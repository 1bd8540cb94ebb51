#pragma once
/// Helpers shared by the subcommands.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "merlin/util/process_info.h"
#include "merlin/util/result.h"

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

/// The option's seconds as a duration.
std::chrono::milliseconds kill_wait_of(double seconds);

/// The most tasks one process runs at once (-j/--jobs, --concurrency, Celery's --concurrency in
/// worker args). Each is a thread and a child process; past this a node thrashes instead of
/// working, and the system's thread limit is near (std::thread throws beyond it).
inline constexpr long long kMaxSlots = 4096;

/// `value` given for `flag` as a number of slots: 1..kMaxSlots, else kBadInput naming the flag,
/// the value and the range.
Result<int> check_slots(long long value, const std::string& flag);

}  // namespace merlin::cli
