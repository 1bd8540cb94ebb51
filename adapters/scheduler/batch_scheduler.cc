#include "adapters/scheduler/batch_scheduler.h"

#include <cstdlib>
#include <vector>

#include "adapters/scheduler/external_command.h"
#include "merlin/core/batch/scheduler.h"

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

Result<std::string> submit_job_script(const std::string& batch_type, const std::string& script_path,
                                      const EnvOverrides& env) {
  const auto* s = batch::find_scheduler(batch_type);
  if (!s || !s->has_jobs())
    return Error::bad_input("batch type '" + batch_type + "' has no batch jobs to submit");
  std::vector<std::string> argv = s->submit_command();
  std::optional<std::string> input;
  if (s->submit_reads_stdin())
    input = script_path;
  else
    argv.push_back(script_path);
  auto r = run_external(argv, input, env);
  if (!r) return r.error();
  if (r->exit_code != 0) {
    std::string words = trimmed(r->err.empty() ? r->out : r->err);
    return Error::runtime(argv[0] + " refused the job (exit " + std::to_string(r->exit_code) +
                          "): " + (words.empty() ? "(it printed nothing)" : words));
  }
  auto id = s->job_id(r->out);
  if (!id) return Error::runtime(argv[0] + " printed no job id: '" + trimmed(r->out) + "'");
  return *id;
}

bool inside_allocation(const std::string& batch_type) {
  const auto* s = batch::find_scheduler(batch_type);
  return s && *s->allocation_variable() && has_env(s->allocation_variable());
}

std::optional<long> allocation_seconds_left() {
  for (const auto* s : batch::schedulers()) {
    const char* var = s->allocation_variable();
    const char* job = *var ? std::getenv(var) : nullptr;
    if (!job || !*job) continue;
    auto argv = s->time_left_command(job);
    if (argv.empty()) continue;
    auto r = run_external(argv);
    if (!r || r->exit_code != 0) continue;
    if (auto left = s->time_left(r->out)) return left;
  }
  return std::nullopt;
}

}  // namespace merlin
