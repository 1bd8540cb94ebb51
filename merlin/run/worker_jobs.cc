#include "merlin/run/worker_jobs.h"

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "adapters/scheduler/batch_scheduler.h"
#include "merlin/batch/scheduler.h"
#include "merlin/util/files.h"
#include "merlin/util/log.h"
#include "merlin/util/process_info.h"
#include "merlin/util/shell_words.h"

extern char** environ;

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

Result<std::vector<batch::WorkerJob>> scheduler_jobs(const spec::StudySpec& spec,
                                                     const StudyTokens& tokens,
                                                     const std::vector<WorkerPlan>& plans,
                                                     const HereCommand& here,
                                                     const std::string& log_dir) {
  std::vector<batch::WorkerJob> out;
  for (const auto& p : plans) {
    auto w = std::find_if(spec.workers.begin(), spec.workers.end(),
                          [&](const spec::WorkerSpec& s) { return s.name == p.name; });
    if (w == spec.workers.end()) continue;
    const spec::BatchSpec& b = w->batch ? *w->batch : spec.batch;
    if (!runs_under_scheduler(b.type)) continue;
    batch::WorkerJob j;
    j.worker = p.name;
    j.job_name = "merlin_" + here.study_name + "_" + w->name;
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
    std::string cmd = shell_quote(here.exe) + " run-workers " + shell_quote(here.spec) +
                      " --worker " + shell_quote(p.name) +
                      " --here --exit-when-done --concurrency " + std::to_string(p.slots);
    for (const auto& v : here.vars) cmd += " --vars " + shell_quote(v);
    for (const auto& s : here.steps) cmd += " --steps " + shell_quote(s);
    char num[64];
    std::snprintf(num, sizeof num, "%g", here.lease_seconds);
    cmd += std::string(" --lease ") + num;
    if (here.dead_after_seconds != std::chrono::duration<double>(kDefaultDeadAfter).count()) {
      std::snprintf(num, sizeof num, "%g", here.dead_after_seconds);
      cmd += std::string(" --dead-after ") + num;
    }
    std::snprintf(num, sizeof num, "%g", here.drain_margin);
    cmd += std::string(" --drain-margin ") + num;
    if (here.max_deliveries != static_cast<int>(kDefaultMaxDeliveries))
      cmd += " --max-deliveries " + std::to_string(here.max_deliveries);
    if (here.kill_wait != std::chrono::duration<double>(kDefaultKillWait).count()) {
      std::snprintf(num, sizeof num, "%g", here.kill_wait);
      cmd += std::string(" --kill-wait ") + num;
    }
    if (here.log_level != "info") cmd += " --log-level " + shell_quote(here.log_level);
    j.command = cmd;
    j.log_dir = log_dir;
    j.array = here.array;
    out.push_back(std::move(j));
  }
  return out;
}

int submit_jobs(const std::vector<batch::WorkerJob>& jobs) {
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
    auto id = submit_job_script(j.batch.type, path);
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

int launch_jobs_here(const std::vector<batch::WorkerJob>& jobs) {
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
    int e = ::posix_spawn(&pid, argv[0].c_str(), nullptr, nullptr, args.data(), environ);
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
