#pragma once
/// The report tables of the broker commands (docs/json-output.md): `queue-info`'s messages per
/// queue and `query-workers`' workers. Pure: the commands read the broker, these shape it.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/broker/study_registry.h"
#include "merlin/core/broker/worker_registry.h"
#include "merlin/core/report/table.h"

namespace merlin::run {

/// One study's queues, as `queue-info` lists them.
struct StudyQueues {
  std::string study;  ///< the study key
  std::vector<QueueStats> queues;
};

/// study, queue (strings), queued, reserved, delayed, consumers (integers).
report::Table queue_table(const std::vector<StudyQueues>& studies);

/// worker, host (strings), pid (integer), job and study (strings, null when none; "-" in text
/// and CSV), queues (array of strings), slots, seen_s_ago (integers: whole seconds since the
/// last heartbeat, at `now_ms`), state ("alive", or "lost" once not is_alive with the default
/// dead-after time, kDefaultDeadAfter).
report::Table worker_table(const std::vector<WorkerRecord>& workers, std::int64_t now_ms);

}  // namespace merlin::run
