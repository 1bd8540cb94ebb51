#include "merlin/run/task_table.h"

#include <cmath>

namespace merlin::run {

report::Table task_table(const std::vector<TaskRow>& tasks, bool people) {
  report::Table t;
  t.columns = {{.header = "STEP"},
               {.header = "TASK"},
               {.header = "STATUS"},
               {.header = "RETURN CODE"},
               {.header = "ELAPSED TIME"},
               {.header = "RUN TIME", .decimals = 3},
               {.header = "RESTARTS"},
               {.header = "QUEUE"},
               {.header = "WORKER"},
               {.header = "STARTED"},
               {.header = "ENDED"}};
  auto time_cell = [](std::uint32_t epoch) {
    return epoch == 0 ? report::Cell() : report::Cell(epoch).shown_as(time_text(epoch));
  };
  for (const auto& task : tasks) {
    const TaskDetail& d = task.detail;
    report::Cell run_time;
    // A journal holds float seconds: to the microsecond, not float noise ("0.0146826813").
    if (d.outcome) run_time = std::round(static_cast<double>(d.seconds) * 1e6) / 1e6;
    if (people) run_time = run_time.shown_as(d.outcome ? duration_text(d.seconds) : "");
    report::Cell elapsed;
    if (auto e = d.elapsed()) {
      elapsed = static_cast<std::uint64_t>(*e);
      if (people) elapsed = elapsed.shown_as(duration_text(*e));
    }
    t.rows.push_back({task.step, task.dir, state_name(d.state),
                      d.outcome ? report::Cell(return_code_name(*d.outcome)) : report::Cell(),
                      elapsed, run_time, d.starts > 1 ? d.starts - 1 : 0, task.queue,
                      report::text_or_null(d.worker), time_cell(d.started_at),
                      time_cell(d.outcome ? d.ended_at : 0)});
  }
  return t;
}

}  // namespace merlin::run
