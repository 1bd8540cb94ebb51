#include "adapters/scheduler/batch_scheduler.h"

#include <cstdlib>
#include <sstream>
#include <vector>

#include "adapters/scheduler/external_command.h"
#include "merlin/batch/scheduler_text.h"
#include "merlin/batch/worker_job.h"

namespace merlin {
namespace {

bool has_env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

std::string trimmed(const std::string& text) {  // without trailing newlines and spaces
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

}  // namespace

Result<std::string> submit_job_script(const std::string& batch_type,
                                      const std::string& script_path) {
  std::vector<std::string> argv;
  std::istringstream words(batch::submit_program(batch_type));
  for (std::string w; words >> w;) argv.push_back(w);
  std::optional<std::string> input;
  if (batch::submit_reads_stdin(batch_type))
    input = script_path;
  else
    argv.push_back(script_path);
  auto r = run_external(argv, input);
  if (!r) return r.error();
  if (r->exit_code != 0) {
    std::string words = trimmed(r->err.empty() ? r->out : r->err);
    return Error::runtime(argv[0] + " refused the job (exit " + std::to_string(r->exit_code) +
                          "): " + (words.empty() ? "(it printed nothing)" : words));
  }
  auto id = batch::submitted_job_id(batch_type, r->out);
  if (!id) return Error::runtime(argv[0] + " printed no job id: '" + trimmed(r->out) + "'");
  return *id;
}

bool inside_allocation(const std::string& batch_type) {
  if (batch_type == "slurm" || batch_type == "lsf-srun") return has_env("SLURM_JOB_ID");
  if (batch_type == "flux") return has_env("FLUX_URI");
  if (batch_type == "lsf") return has_env("LSB_JOBID");
  return false;
}

std::optional<long> slurm_allocation_seconds_left() {
  const char* job = std::getenv("SLURM_JOB_ID");
  if (!job || !*job) return std::nullopt;
  auto r = run_external({"squeue", "-h", "-j", job, "-o", "%L"});
  if (!r || r->exit_code != 0) return std::nullopt;
  return batch::slurm_time_left(r->out);
}

}  // namespace merlin
