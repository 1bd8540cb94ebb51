#include "merlin/run/worker_jobs.h"

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "adapters/scheduler/batch_scheduler.h"
#include "merlin/core/batch/scheduler.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/process_info.h"
#include "merlin/core/util/shell_words.h"

namespace merlin::run {
namespace {

bool runs_under_scheduler(const std::string& type) {
  const auto* s = batch::find_scheduler(type);
  return s && s->has_jobs();
}

std::string where(const spec::StudySpec& spec, const spec::SourceLocation& at) {
  if (!at.known()) return spec.path;
  return spec.path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
}

std::string script_extension(const std::string& type) {
  const auto* s = batch::find_scheduler(type);
  return s ? s->script_extension() : ".sh";
}

}  // namespace

std::string scheduler_name(const std::string& batch_type) {
  const auto* s = batch::find_scheduler(batch_type);
  return s ? std::string(s->name()) : batch_type;
}

RunWorkersOptions job_options(const RunWorkersOptions& o, const WorkerPlan& plan,
                              const std::string& spec) {
  RunWorkersOptions j;
  j.spec = spec;
  j.vars = o.vars;
  j.steps = o.steps;
  j.workers = {plan.name};
  j.concurrency = plan.slots;
  j.here = true;
  j.exit_when_done = true;
  j.lease_seconds = o.lease_seconds;
  j.dead_after_seconds = o.dead_after_seconds;
  j.drain_margin = o.drain_margin;
  j.max_deliveries = o.max_deliveries;
  j.kill_wait = o.kill_wait;
  j.log_level = o.log_level;
  return j;
}

Result<std::vector<batch::WorkerJob>> scheduler_jobs(const spec::StudySpec& spec,
                                                     const StudyTokens& tokens,
                                                     const std::vector<WorkerPlan>& plans,
                                                     const RunWorkersOptions& o,
                                                     const JobContext& context) {
  std::vector<batch::WorkerJob> out;
  for (const auto& p : plans) {
    auto w = std::find_if(spec.workers.begin(), spec.workers.end(),
                          [&](const spec::WorkerSpec& s) { return s.name == p.name; });
    if (w == spec.workers.end()) continue;
    const spec::BatchSpec& b = w->batch ? *w->batch : spec.batch;
    if (!runs_under_scheduler(b.type)) continue;
    batch::WorkerJob j;
    j.worker = p.name;
    j.job_name = "merlin_" + context.study_name + "_" + w->name;
    j.batch = b;
    // `nodes: $(NODES)` takes the spec's variables, as Maestro substitutes them everywhere.
    const std::string nodes = tokens.substitute(!w->nodes.empty() ? w->nodes : b.nodes);
    if (!nodes.empty()) {
      char* end = nullptr;
      long n = std::strtol(nodes.c_str(), &end, 10);
      if (end == nodes.c_str() || *end != '\0' || n < 1 || n > 1'000'000)
        return Error::bad_input(where(spec, w->nodes.empty()
                                                ? (w->batch ? w->batch_where : spec.batch_where)
                                                : w->where) +
                                ": worker '" + p.name +
                                "': nodes must be a positive whole number, got '" + nodes + "'");
      j.nodes = static_cast<int>(n);
    }
    std::string cmd = shell_quote(context.exe);
    for (const auto& word : run_workers_argv(job_options(o, p, context.spec)))
      cmd += " " + shell_quote(word);
    j.command = cmd;
    j.log_dir = context.log_dir;
    j.array = o.array;
    out.push_back(std::move(j));
  }
  return out;
}

Result<WorkerPlacement> place_workers(const spec::StudySpec& spec, const StudyTokens& tokens,
                                      std::vector<WorkerPlan> plans, const RunWorkersOptions& o,
                                      const JobContext& context,
                                      const std::function<bool(const std::string&)>& inside) {
  auto jobs = scheduler_jobs(spec, tokens, plans, o, context);
  if (!jobs) return jobs.error();
  WorkerPlacement out;
  std::erase_if(plans, [&](const WorkerPlan& p) {
    return std::any_of(jobs->begin(), jobs->end(),
                       [&](const batch::WorkerJob& j) { return j.worker == p.name; });
  });
  out.local = std::move(plans);
  for (auto& j : *jobs) (inside(j.batch.type) ? out.here : out.submit).push_back(std::move(j));
  return out;
}

Result<WorkerPlacement> place_workers(const spec::StudySpec& spec, const StudyTokens& tokens,
                                      std::vector<WorkerPlan> plans, const RunWorkersOptions& o,
                                      const JobContext& context) {
  return place_workers(spec, tokens, std::move(plans), o, context, inside_allocation);
}

Result<std::string> echo_text(const WorkerPlacement& placement) {
  std::string out;
  for (const auto& j : placement.here) out += batch::node_launch(j) + "\n";
  for (const auto& j : placement.submit) {
    auto text = batch::render_job_script(j);
    if (!text) return text.error();
    out += *text;
  }
  return out;
}

std::optional<DrainPlan> drain_plan(double margin, std::optional<long> seconds_left) {
  if (margin <= 0 || !seconds_left) return std::nullopt;
  return DrainPlan{*seconds_left, std::max(0L, *seconds_left - static_cast<long>(margin))};
}

std::optional<DrainPlan> allocation_drain_plan(double margin) {
  return drain_plan(margin, margin > 0 ? allocation_seconds_left() : std::nullopt);
}

int submit_jobs(const std::vector<batch::WorkerJob>& jobs, const EnvOverrides& env) {
  int rc = 0;
  for (const auto& j : jobs) {
    auto text = batch::render_job_script(j);
    if (!text) {
      std::fprintf(stderr, "merlin: %s\n", text.error().message.c_str());
      return 2;
    }
    std::error_code ec;
    std::filesystem::create_directories(j.log_dir, ec);
    std::string path = j.log_dir + "/" + j.job_name + script_extension(j.batch.type);
    if (auto w = files::write(path, *text); !w) {
      std::fprintf(stderr, "merlin: %s\n", w.error().message.c_str());
      return 1;
    }
    auto id = submit_job_script(j.batch.type, path, env);
    if (!id) {
      std::fprintf(stderr, "merlin: worker '%s': %s (script: %s)\n", j.worker.c_str(),
                   id.error().message.c_str(), path.c_str());
      rc = 1;
      continue;
    }
    std::string size = std::to_string(j.nodes) + (j.nodes == 1 ? " node" : " nodes");
    if (j.array > 1) size = "an array of " + std::to_string(j.array) + " x " + size;
    std::printf("worker %s: %s job %s (%s), script %s\n", j.worker.c_str(),
                scheduler_name(j.batch.type).c_str(), id->c_str(), size.c_str(), path.c_str());
    std::fflush(stdout);
  }
  return rc;
}

int launch_jobs_here(const std::vector<batch::WorkerJob>& jobs, const EnvOverrides& env) {
  std::vector<std::string> envs = environment_with(env);
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<pid_t> pids;
  bool failed = false;
  for (const auto& j : jobs) {
    std::string line = batch::node_launch(j);
    log::info("worker={} launching in this allocation: {}", j.worker, line);
    std::vector<std::string> argv = shell_words(j.batch.shell);
    argv.insert(argv.end(), {"-c", line});
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = 0;
    int e = ::posix_spawn(&pid, argv[0].c_str(), nullptr, nullptr, args.data(), envp.data());
    if (e != 0) {
      std::fprintf(stderr, "merlin: cannot start %s: %s\n", argv[0].c_str(), std::strerror(e));
      failed = true;
      continue;
    }
    pids.push_back(pid);
  }
  int rc = failed ? 1 : 0;
  for (pid_t pid : pids) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc == 0) rc = code;
  }
  return rc;
}

}  // namespace merlin::run
