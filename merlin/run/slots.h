#pragma once
/// How many tasks one process may run at once: `-j/--jobs`, `--concurrency` and Celery's
/// `--concurrency` in a worker's args all mean slots, checked here against one bound.
#include <string>

#include "merlin/core/util/result.h"

namespace merlin::run {

/// The most tasks one process runs at once (-j/--jobs, --concurrency, Celery's --concurrency in
/// worker args). Each is a thread and a child process; past this a node thrashes instead of
/// working, and the system's thread limit is near (std::thread throws beyond it).
inline constexpr long long kMaxSlots = 4096;

/// `value` given for `flag` as a number of slots: 1..kMaxSlots, else kBadInput naming the flag,
/// the value and the range.
Result<int> check_slots(long long value, const std::string& flag);

}  // namespace merlin::run
