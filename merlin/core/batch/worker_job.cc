#include "merlin/core/batch/worker_job.h"

#include <vector>

#include "merlin/core/batch/scheduler.h"

#include "merlin/core/batch/walltime.h"

namespace merlin::batch {
namespace {

// Appends `word` to `line` with one space between, if it is not empty.
void add(std::string& line, const std::string& word) {
  if (word.empty()) return;
  if (!line.empty()) line += ' ';
  line += word;
}

std::string job_types() {
  std::string out;
  for (const auto* s : schedulers())
    if (s->has_jobs()) out += (out.empty() ? "" : ", ") + std::string(s->type());
  return out;
}

}  // namespace

std::string node_launch(const WorkerJob& job) {
  const auto& b = job.batch;
  const Scheduler* s = find_scheduler(b.type);
  if (!s || !s->has_jobs()) return job.command;
  std::string line;
  add(line, b.launch_pre);
  add(line, !b.worker_launch.empty() ? b.worker_launch : s->node_launcher(job));
  add(line, b.launch_args);
  add(line, job.command);
  return line;
}

Result<std::string> render_job_script(const WorkerJob& job) {
  const auto& b = job.batch;
  const Scheduler* s = find_scheduler(b.type);
  if (!s || !s->has_jobs())
    return Error::bad_input("worker '" + job.worker + "': batch type '" + b.type +
                            "' has no batch jobs (use " + job_types() + ")");
  std::optional<long> wall;
  if (!b.walltime.empty()) {
    wall = walltime_seconds(b.walltime);
    if (!wall)
      return Error::bad_input("worker '" + job.worker + "': batch walltime '" + b.walltime +
                              "' is not HH:MM:SS, MM:SS or seconds");
  }
  auto head = s->job_directives(job, wall, job.log_dir.empty() ? "" : job.log_dir + "/");
  if (!head) return head.error();
  std::string out = "#!" + b.shell + "\n";
  for (const auto& h : *head) out += h + "\n";
  out += "\n# merlin worker '" + job.worker +
         "': one worker process per node; each exits when the study has no work left for\n"
         "# it (or drains before the time limit), so the allocation ends with the study.\n";
  for (const auto& line : s->job_preamble()) out += line + "\n";
  out += node_launch(job) + "\n";
  return out;
}

std::string submit_program(const std::string& batch_type) {
  const Scheduler* s = find_scheduler(batch_type);
  std::string out;
  if (s)
    for (const auto& w : s->submit_command()) out += (out.empty() ? "" : " ") + w;
  return out;
}

bool submit_reads_stdin(const std::string& batch_type) {
  const Scheduler* s = find_scheduler(batch_type);
  return s && s->submit_reads_stdin();
}

}  // namespace merlin::batch
