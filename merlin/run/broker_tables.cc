#include "merlin/run/broker_tables.h"

#include <algorithm>

namespace merlin::run {

report::Table queue_table(const std::vector<StudyQueues>& studies) {
  report::Table t;
  t.columns = {{.header = "STUDY"},    {.header = "QUEUE"},   {.header = "QUEUED"},
               {.header = "RESERVED"}, {.header = "DELAYED"}, {.header = "CONSUMERS"}};
  for (const auto& s : studies)
    for (const auto& q : s.queues)
      t.rows.push_back({s.study, q.queue, q.queued, q.reserved, q.delayed, q.consumers});
  return t;
}

report::Table worker_table(const std::vector<WorkerRecord>& workers, std::int64_t now_ms) {
  report::Table t;
  t.columns = {{.header = "WORKER"},
               {.header = "HOST"},
               {.header = "PID"},
               {.header = "JOB", .null_text = "-"},
               {.header = "STUDY", .null_text = "-"},
               {.header = "QUEUES"},
               {.header = "SLOTS"},
               {.header = "SEEN_S_AGO"},
               {.header = "STATE"}};
  for (const auto& w : workers) {
    const std::int64_t age_ms = now_ms - w.seen_ms;
    t.rows.push_back({w.name, w.host, w.pid, report::text_or_null(w.job),
                      report::text_or_null(w.study), w.queues, w.slots,
                      std::max<std::int64_t>(0, age_ms) / 1000,
                      is_alive(w.seen_ms, now_ms) ? "alive" : "lost"});
  }
  return t;
}

}  // namespace merlin::run
