#include <signal.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "adapters/scheduler/batch_scheduler.h"
#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/celery_args.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/stop_control.h"
#include "merlin/run/worker_fleet.h"
#include "merlin/run/worker_jobs.h"
#include "merlin/util/log.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct RunWorkersArgs {
  std::string spec;
  std::vector<std::string> vars, steps, workers;
  std::string worker_args;  ///< Merlin's --worker-args: Celery flags for every worker
  long long concurrency = 0;
  bool concurrency_given = false;  ///< --concurrency was on the command line
  bool echo = false, exit_when_done = false;
  bool here = false;  ///< run the workers in this process whatever their batch type
  bool disable_logs = false;  ///< Merlin's --disable-logs: errors only, here and in the jobs
  double lease_seconds = std::chrono::duration<double>(kDefaultLease).count();
  /// a worker whose heartbeat is this old is dead: its tasks go back at once
  double dead_after_seconds = std::chrono::duration<double>(kDefaultDeadAfter).count();
  double drain_margin = 60;  ///< seconds before the allocation's end to drain
  int array = 0;             ///< submit each worker job as an array of this many
  int max_deliveries = kDefaultMaxDeliveries;  ///< delivered more often: given up as failed
  double kill_wait = std::chrono::duration<double>(kDefaultKillWait).count();
  BrokerFlags broker;
};


Result<std::vector<WorkerPlan>> plan_workers(const spec::StudySpec& spec, const RunWorkersArgs& a) {
  std::set<std::string> want_workers(a.workers.begin(), a.workers.end());
  std::set<std::string> want_steps(a.steps.begin(), a.steps.end());
  for (const auto& n : want_steps)
    if (!spec.find_step(n))
      return Error::bad_input("--steps: no step named '" + n + "' in the spec");
  for (const auto& n : want_workers) {
    bool known = std::any_of(spec.workers.begin(), spec.workers.end(),
                             [&](const spec::WorkerSpec& w) { return w.name == n; });
    if (!known) return Error::bad_input("--worker: no worker named '" + n + "' in the spec");
  }
  std::optional<int> concurrency;
  if (a.concurrency_given) {
    auto c = check_slots(a.concurrency, "--concurrency");
    if (!c) return c.error();
    concurrency = *c;
  }
  auto extra = parse_celery_args(a.worker_args);
  if (!extra) return Error::bad_input("--worker-args: " + extra.error().message);
  if (!extra->ignored.empty()) {
    std::string words;
    for (const auto& i : extra->ignored) words += (words.empty() ? "" : " ") + i;
    log::warn("Celery flags in --worker-args are ignored: {}", words);
  }
  std::vector<WorkerPlan> out;
  std::string host = host_name();
  for (const auto& w : spec.workers) {
    if (!want_workers.empty() && !want_workers.count(w.name)) continue;
    WorkerPlan p;
    p.name = w.name;
    for (const auto& step : w.steps) {
      if (!want_steps.empty() && !want_steps.count(step)) continue;
      const auto* s = spec.find_step(step);
      if (s && std::find(p.queues.begin(), p.queues.end(), s->run.task_queue) == p.queues.end())
        p.queues.push_back(s->run.task_queue);
    }
    if (p.queues.empty()) continue;
    auto celery = parse_celery_args(w.args);
    if (!celery) return Error::bad_input("worker '" + w.name + "': " + celery.error().message);
    if (!celery->ignored.empty()) {
      std::string words;
      for (const auto& i : celery->ignored) words += (words.empty() ? "" : " ") + i;
      log::warn("worker={} Celery flags in args are ignored: {}", w.name, words);
    }
    p.slots = concurrency          ? *concurrency
              : extra->concurrency ? *extra->concurrency
                                   : celery->concurrency.value_or(core_count());
    p.id = host + "." + std::to_string(::getpid()) + "." + w.name;
    out.push_back(std::move(p));
  }
  if (out.empty()) return Error::bad_input("no worker of the spec serves the chosen steps");
  return out;
}

// Merlin's `machines:` — a worker that names machines starts only on a host whose name
// contains one of them (checked where the workers run: here, or on each node of a job).
std::vector<WorkerPlan> for_this_machine(const spec::StudySpec& spec,
                                         std::vector<WorkerPlan> plans) {
  const std::string host = host_name();
  std::erase_if(plans, [&](const WorkerPlan& p) {
    auto w = std::find_if(spec.workers.begin(), spec.workers.end(),
                          [&](const spec::WorkerSpec& s) { return s.name == p.name; });
    if (w == spec.workers.end() || w->machines.empty()) return false;
    bool here = std::any_of(w->machines.begin(), w->machines.end(), [&](const std::string& m) {
      return !m.empty() && host.find(m) != std::string::npos;
    });
    if (!here) {
      std::string names;
      for (const auto& m : w->machines) names += (names.empty() ? "" : ",") + m;
      log::warn("worker={} not started: its machines ({}) do not include this host ({})", p.name,
                names, host);
    }
    return !here;
  });
  return plans;
}

int echo(const RunWorkersArgs& a, const std::vector<WorkerPlan>& plans) {
  for (const auto& p : plans) {
    std::string line =
        "merlin run-workers " + shell_quote(a.spec) + " --worker " + shell_quote(p.name);
    line += " --concurrency " + std::to_string(p.slots);
    for (const auto& s : a.steps) line += " --steps " + shell_quote(s);
    for (const auto& v : a.vars) line += " --vars " + shell_quote(v);
    if (a.exit_when_done) line += " --exit-when-done";
    std::printf("%s\n", line.c_str());
  }
  return kExitOk;
}

// Workers whose batch type is a scheduler: submitted as jobs or, inside an allocation of that
// scheduler, started per node by its launcher; each of those runs `run-workers --here`. They
// leave `plans`. Returns the exit code when nothing is left to run here.
std::optional<int> hand_to_scheduler(const RunWorkersArgs& a, const spec::StudySpec& spec,
                                     const StudyTokens& tokens, std::vector<WorkerPlan>& plans) {
  HereCommand hc;
  hc.study_name = tokens.study_name;
  hc.exe = self_exe();
  hc.spec = std::filesystem::absolute(a.spec).lexically_normal().string();
  hc.vars = a.vars;
  hc.steps = a.steps;
  hc.lease_seconds = a.lease_seconds;
  hc.dead_after_seconds = a.dead_after_seconds;
  hc.drain_margin = a.drain_margin;
  hc.array = a.array;
  hc.max_deliveries = a.max_deliveries;
  hc.kill_wait = a.kill_wait;
  hc.log_level = log::level_name(log::level());
  auto jobs = scheduler_jobs(spec, tokens, plans, hc, current_dir() + "/merlin_workers");
  if (!jobs) return report_error(jobs.error());
  if (jobs->empty()) return std::nullopt;
  std::erase_if(plans, [&](const WorkerPlan& p) {
    return std::any_of(jobs->begin(), jobs->end(),
                       [&](const batch::WorkerJob& j) { return j.worker == p.name; });
  });
  std::vector<batch::WorkerJob> here, submit;
  for (auto& j : *jobs) (inside_allocation(j.batch.type) ? here : submit).push_back(j);
  if (a.echo) {
    for (const auto& j : here) std::printf("%s\n", batch::node_launch(j).c_str());
    for (const auto& j : submit) {
      auto text = batch::render_job_script(j);
      if (!text) return report_error(text.error());
      std::printf("%s", text->c_str());
    }
    return plans.empty() ? std::optional<int>(kExitOk) : std::nullopt;
  }
  // The jobs inherit this environment: the broker reaches them without being written down.
  if (!a.broker.url.empty()) ::setenv("MERLIN_BROKER_URL", a.broker.url.c_str(), 1);
  if (a.broker.retry_seconds >= 0)
    ::setenv("MERLIN_BROKER_RETRY", std::to_string(a.broker.retry_seconds).c_str(), 1);
  if (a.broker.timeout_seconds >= 0)
    ::setenv("MERLIN_BROKER_TIMEOUT", std::to_string(a.broker.timeout_seconds).c_str(), 1);
  int rc = submit.empty() ? kExitOk : submit_jobs(submit);
  if (rc == kExitOk && !here.empty()) rc = launch_jobs_here(here);
  if (plans.empty() || rc != kExitOk) return rc;
  return std::nullopt;
}

int run_workers(const RunWorkersArgs& a) {
  if (a.disable_logs && log::level() < log::Level::kError) log::set_level(log::Level::kError);
  auto loaded = load_spec_with_vars(a.spec, a.vars);
  if (!loaded) return report_error(loaded.error());
  for (const auto& w : loaded->warnings) std::fprintf(stderr, "%s\n", w.str().c_str());
  auto plans = plan_workers(loaded->spec, a);
  if (!plans) return report_error(plans.error());
  if (a.lease_seconds < 0.1)
    return report_error(Error::bad_input("--lease must be at least 0.1 seconds"));
  // Workers beat about once a second; a few missed beats (a busy host, a slow reply) must not
  // pass for death.
  if (a.dead_after_seconds != 0 && a.dead_after_seconds < 3)
    return report_error(Error::bad_input(
        "--dead-after must be at least 3 seconds (workers beat every second), or 0 for leases "
        "only"));
  if (a.drain_margin < 0)
    return report_error(Error::bad_input("--drain-margin must be 0 or more seconds"));
  auto tokens = spec_tokens(loaded->spec);
  if (!tokens) return report_error(tokens.error());
  if (!a.here) {
    auto handed = hand_to_scheduler(a, loaded->spec, *tokens, *plans);
    if (handed) return *handed;
  }
  if (a.echo) return echo(a, *plans);
  *plans = for_this_machine(loaded->spec, std::move(*plans));
  if (plans->empty())
    return report_error(
        Error::bad_input("no worker of the spec may run on this host (see "
                         "`machines:` of merlin.resources.workers)"));
  auto loc = resolve_broker(a.broker);
  if (!loc) return report_error(loc.error());
  // The server must answer now; afterwards the workers ride out its outages.
  auto check = open_backend(*loc);
  if (!check) return report_error(check.error());
  auto v = (*check)->server_version();
  if (!v) return report_error(v.error());
  auto backend =
      open_backend(*loc, BackendOptions{.wait_for_server = true,
                                        .dead_after = std::chrono::milliseconds(
                                            static_cast<long long>(a.dead_after_seconds * 1000))});
  if (!backend) return report_error(backend.error());
  for (const auto& p : *plans) {
    std::string qs;
    for (const auto& q : p.queues) qs += (qs.empty() ? "" : ",") + q;
    log::info("worker={} queues={} slots={} broker={}", p.name, qs, p.slots, loc->display());
  }
  // First SIGINT/SIGTERM/SIGUSR1: drain; second: abort (merlin/run/stop_control.h).
  Interrupts::install({SIGINT, SIGTERM, SIGUSR1});
  auto lease = std::chrono::milliseconds(static_cast<long long>(a.lease_seconds * 1000));
  FleetOptions fo;
  fo.lease = lease;
  fo.exit_when_done = a.exit_when_done;
  fo.output_path = tokens->output_path;
  fo.max_deliveries = static_cast<std::uint32_t>(std::max(0, a.max_deliveries));
  fo.kill_wait = kill_wait_of(a.kill_wait);
  fo.app_scratch = app_scratch();
  auto left = a.drain_margin > 0 ? allocation_seconds_left() : std::nullopt;
  if (left) {
    long drain_in = std::max(0L, *left - static_cast<long>(a.drain_margin));
    fo.drain_at = std::chrono::steady_clock::now() + std::chrono::seconds(drain_in);
    log::info("allocation time left {}s: workers drain in {}s (--drain-margin {})", *left, drain_in,
              a.drain_margin);
  }
  int rc = run_fleet(**backend, tokens->study_name, *plans, fo);
  Interrupts::uninstall({SIGINT, SIGTERM, SIGUSR1});
  return rc;
}

}  // namespace

Command run_workers_command() {
  return {"run-workers",
          "Run the workers of a spec's merlin.resources.workers, serving the studies queued "
          "from that spec by `merlin run`: here, or as batch jobs when their batch type is "
          "slurm, flux, lsf, lsf-srun or pbs (one worker per node; the job ends with the study)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<RunWorkersArgs>();
            sub.add_option("spec", a->spec, "The study spec (YAML)");
            sub.add_option("--vars", a->vars, "Override env.variables: KEY=VALUE ...");
            sub.add_option("--steps", a->steps, "Only serve the queues of these steps");
            sub.add_option("--worker", a->workers, "Only start these workers (by name)");
            sub.add_option("--worker-args", a->worker_args,
                           "Celery flags for every worker, as Merlin's (only --concurrency "
                           "is used: it overrides the spec's)");
            auto* concurrency =
                sub.add_option("--concurrency", a->concurrency,
                               "Tasks each worker runs at once, 1 to 4096 (overrides "
                               "--concurrency in the worker's args; default: number of cores)");
            sub.add_flag("--disable-logs", a->disable_logs,
                         "Merlin's flag: the workers log errors only (the same as --log-level "
                         "error, passed on to worker jobs too); progress lines are not shown");
            sub.add_flag("--echo", a->echo,
                         "Print the command (or batch job script) that starts each worker, "
                         "start nothing");
            sub.add_flag("--exit-when-done", a->exit_when_done,
                         "Exit 0 once no study of this spec has work left (for batch jobs)");
            sub.add_flag("--here", a->here,
                         "Run the workers in this process even if their batch type is a "
                         "scheduler (what submitted jobs run on each node)");
            sub.add_option("--max-deliveries", a->max_deliveries,
                           "Give up (record as failed) a task whose workers died on it this "
                           "many times; 0: never")
                ->capture_default_str();
            sub.add_option("--array", a->array,
                           "Submit each worker job as a job array of N allocations (Slurm, "
                           "LSF): a fleet of workers for a large study");
            sub.add_option("--drain-margin", a->drain_margin,
                           "Inside a Slurm allocation: drain this many seconds before its time "
                           "limit (running tasks finish, the rest go back to the queue); 0: "
                           "never, the scheduler's kill ends the workers")
                ->capture_default_str();
            sub.add_option("--lease", a->lease_seconds,
                           "Seconds a reserved task stays ours without renewal before another "
                           "worker takes it over (renewed every third of it)")
                ->capture_default_str();
            sub.add_option("--dead-after", a->dead_after_seconds,
                           "Seconds without a heartbeat after which a worker counts as dead: "
                           "the tasks it held go back to the queue at once, whatever their "
                           "lease (at least 3; 0: wait for the lease only)")
                ->capture_default_str();
            add_kill_wait_option(sub, a->kill_wait);
            add_broker_flags(sub, a->broker);
            return [a, concurrency] {
              a->concurrency_given = concurrency->count() > 0;
              reclaim_spec(a->vars, a->spec);
              return run_workers(*a);
            };
          }};
}

}  // namespace merlin::cli
