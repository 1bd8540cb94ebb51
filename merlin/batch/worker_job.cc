#include "merlin/batch/worker_job.h"

#include <fmt/format.h>

#include <cctype>
#include <vector>

#include "merlin/spec/field_checks.h"

namespace merlin::batch {
namespace {

std::string hms(long seconds) {
  return fmt::format("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60);
}

// Appends `word` to `line` with one space between, if it is not empty.
void add(std::string& line, const std::string& word) {
  if (word.empty()) return;
  if (!line.empty()) line += ' ';
  line += word;
}

}  // namespace

std::string node_launch(const WorkerJob& job) {
  const auto& b = job.batch;
  if (b.type == "local" || b.type == "pbs") return job.command;
  std::string line;
  add(line, b.launch_pre);
  if (!b.worker_launch.empty()) {
    add(line, b.worker_launch);
  } else if (b.type == "slurm" || b.type == "lsf-srun") {
    // --overlap: the worker step shares its node with the steps it launches ($(LAUNCHER));
    // without it those wait forever for the CPUs and memory the worker step holds.
    add(line, fmt::format("srun --mpi=none --overlap -N {} -n {}", job.nodes, job.nodes));
    if (b.type == "slurm" && !b.queue.empty()) add(line, "-p " + b.queue);
  } else if (b.type == "flux") {
    add(line, fmt::format("flux run -N {} -n {}", job.nodes, job.nodes));
  } else if (b.type == "lsf") {
    add(line, fmt::format("jsrun -a 1 -c ALL_CPUS -g ALL_GPUS --bind=none -n {}", job.nodes));
  }
  add(line, b.launch_args);
  add(line, job.command);
  return line;
}

Result<std::string> render_job_script(const WorkerJob& job) {
  const auto& b = job.batch;
  const bool slurm = b.type == "slurm", flux = b.type == "flux";
  const bool lsf = b.type == "lsf" || b.type == "lsf-srun";
  if (!slurm && !flux && !lsf)
    return Error::bad_input("worker '" + job.worker + "': batch type '" + b.type +
                            "' has no batch jobs (use slurm, flux, lsf or lsf-srun)");
  std::optional<long> wall;
  if (!b.walltime.empty()) {
    wall = spec::walltime_seconds(b.walltime);
    if (!wall)
      return Error::bad_input("worker '" + job.worker + "': batch walltime '" + b.walltime +
                              "' is not HH:MM:SS, MM:SS or seconds");
  }
  const std::string log = job.log_dir.empty() ? "" : job.log_dir + "/";
  std::vector<std::string> head;
  if (slurm) {
    head.push_back("#SBATCH --job-name=" + job.job_name);
    head.push_back(fmt::format("#SBATCH --nodes={}", job.nodes));
    head.push_back("#SBATCH --exclusive");  // the node's cores are for the worker's steps
    if (wall) head.push_back("#SBATCH --time=" + hms(*wall));
    if (!b.queue.empty()) head.push_back("#SBATCH --partition=" + b.queue);
    if (!b.bank.empty()) head.push_back("#SBATCH --account=" + b.bank);
    if (job.array > 1) head.push_back(fmt::format("#SBATCH --array=1-{}", job.array));
    head.push_back("#SBATCH --output=" + log + job.worker +
                   (job.array > 1 ? "-%A_%a.out" : "-%j.out"));
  } else if (flux) {
    head.push_back("#flux: --job-name=" + job.job_name);
    head.push_back(fmt::format("#flux: -N {}", job.nodes));
    if (wall) head.push_back(fmt::format("#flux: -t {}s", *wall));
    if (!b.queue.empty()) head.push_back("#flux: -q " + b.queue);
    if (!b.bank.empty()) head.push_back("#flux: --bank=" + b.bank);
    if (job.array > 1)
      return Error::bad_input("worker '" + job.worker + "': job arrays are Slurm's and LSF's");
    head.push_back("#flux: --output=" + log + job.worker + "-{{id}}.out");
  } else {
    head.push_back("#BSUB -J " + job.job_name +
                   (job.array > 1 ? fmt::format("[1-{}]", job.array) : std::string()));
    head.push_back(fmt::format("#BSUB -nnodes {}", job.nodes));
    if (wall) head.push_back(fmt::format("#BSUB -W {}", (*wall + 59) / 60));  // minutes
    if (!b.queue.empty()) head.push_back("#BSUB -q " + b.queue);
    if (!b.bank.empty()) head.push_back("#BSUB -G " + b.bank);
    head.push_back("#BSUB -o " + log + job.worker + (job.array > 1 ? "-%J_%I.out" : "-%J.out"));
  }
  std::string out = "#!" + b.shell + "\n";
  for (const auto& h : head) out += h + "\n";
  out += "\n# merlin worker '" + job.worker +
         "': one worker process per node; each exits when the study has no work left for\n"
         "# it (or drains before the time limit), so the allocation ends with the study.\n";
  out += node_launch(job) + "\n";
  return out;
}

std::string submit_program(const std::string& batch_type) {
  if (batch_type == "flux") return "flux batch";
  if (batch_type == "lsf" || batch_type == "lsf-srun") return "bsub";
  return "sbatch --parsable";
}

bool submit_reads_stdin(const std::string& batch_type) {
  return batch_type == "lsf" || batch_type == "lsf-srun";
}

}  // namespace merlin::batch
