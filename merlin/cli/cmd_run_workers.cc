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

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/stop_control.h"
#include "merlin/run/worker_fleet.h"
#include "merlin/run/worker_jobs.h"
#include "merlin/run/worker_planning.h"
#include "merlin/core/util/log.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct RunWorkersArgs {
  RunWorkersOptions options;
  BrokerFlags broker;
};

// The broker settings given on our command line, for the worker jobs we start: set in their
// environment (never on the command line, which `ps` and the job script show), where their
// resolve_broker reads them.
EnvOverrides broker_environment(const BrokerFlags& flags) {
  EnvOverrides env;
  if (!flags.url.empty()) env.emplace_back("MERLIN_BROKER_URL", flags.url);
  if (flags.retry_seconds >= 0)
    env.emplace_back("MERLIN_BROKER_RETRY", std::to_string(flags.retry_seconds));
  if (flags.timeout_seconds >= 0)
    env.emplace_back("MERLIN_BROKER_TIMEOUT", std::to_string(flags.timeout_seconds));
  return env;
}

int echo(const RunWorkersOptions& o, const std::vector<WorkerPlan>& plans) {
  for (const auto& p : plans) {
    std::string line =
        "merlin run-workers " + shell_quote(o.spec) + " --worker " + shell_quote(p.name);
    line += " --concurrency " + std::to_string(p.slots);
    for (const auto& s : o.steps) line += " --steps " + shell_quote(s);
    for (const auto& v : o.vars) line += " --vars " + shell_quote(v);
    if (o.exit_when_done) line += " --exit-when-done";
    std::printf("%s\n", line.c_str());
  }
  return kExitOk;
}

// Workers whose batch type is a scheduler: submitted as jobs or, inside an allocation of that
// scheduler, started per node by its launcher; each of those runs `run-workers --here`. They
// leave `plans`. Returns the exit code when nothing is left to run here.
std::optional<int> hand_to_scheduler(const RunWorkersArgs& a, const spec::StudySpec& spec,
                                     const StudyTokens& tokens, std::vector<WorkerPlan>& plans) {
  const RunWorkersOptions& o = a.options;
  JobContext context{tokens.study_name, self_exe(),
                     std::filesystem::absolute(o.spec).lexically_normal().string(),
                     current_dir() + "/merlin_workers"};
  auto placed = place_workers(spec, tokens, plans, o, context);
  if (!placed) return report_error(placed.error());
  if (placed->here.empty() && placed->submit.empty()) return std::nullopt;
  plans = std::move(placed->local);
  if (o.echo) {
    // Printed as one: a script that cannot be rendered prints nothing.
    auto text = echo_text(*placed);
    if (!text) return report_error(text.error());
    std::fputs(text->c_str(), stdout);
    return plans.empty() ? std::optional<int>(kExitOk) : std::nullopt;
  }
  const EnvOverrides env = broker_environment(a.broker);
  int rc = placed->submit.empty() ? kExitOk : submit_jobs(placed->submit, env);
  if (rc == kExitOk && !placed->here.empty()) rc = launch_jobs_here(placed->here, env);
  if (plans.empty() || rc != kExitOk) return rc;
  return std::nullopt;
}

int run_workers(RunWorkersArgs& a, const ExecutorFactory& executor) {
  RunWorkersOptions& o = a.options;
  if (o.disable_logs && log::level() < log::Level::kError) log::set_level(log::Level::kError);
  o.log_level = log::level_name(log::level());
  auto loaded = load_spec_with_vars(o.spec, o.vars);
  if (!loaded) return report_error(loaded.error());
  for (const auto& w : loaded->warnings) std::fprintf(stderr, "%s\n", w.str().c_str());
  auto plans =
      plan_workers(loaded->spec, o, host_name(), static_cast<int>(::getpid()), core_count());
  if (!plans) return report_error(plans.error());
  if (auto checked = check_options(o); !checked) return report_error(checked.error());
  auto tokens = spec_tokens(loaded->spec);
  if (!tokens) return report_error(tokens.error());
  if (!o.here) {
    auto handed = hand_to_scheduler(a, loaded->spec, *tokens, *plans);
    if (handed) return *handed;
  }
  if (o.echo) return echo(o, *plans);
  *plans = for_this_machine(loaded->spec, std::move(*plans), host_name());
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
      open_backend(*loc, BackendOptions{.wait_for_server = true, .dead_after = o.dead_after()});
  if (!backend) return report_error(backend.error());
  for (const auto& p : *plans) {
    std::string qs;
    for (const auto& q : p.queues) qs += (qs.empty() ? "" : ",") + q;
    log::info("worker={} queues={} slots={} broker={}", p.name, qs, p.slots, loc->display());
  }
  // First SIGINT/SIGTERM/SIGUSR1: drain; second: abort (merlin/run/stop_control.h).
  Interrupts::install({SIGINT, SIGTERM, SIGUSR1});
  FleetOptions fo;
  fo.given = o;
  fo.output_path = tokens->output_path;
  fo.app_scratch = app_scratch();
  fo.executor = executor;
  if (auto drain = allocation_drain_plan(o.drain_margin)) {
    fo.drain_at = std::chrono::steady_clock::now() + std::chrono::seconds(drain->drain_in);
    log::info("allocation time left {}s: workers drain in {}s (--drain-margin {})", drain->left,
              drain->drain_in, o.drain_margin);
  }
  int rc = run_fleet(**backend, tokens->study_name, *plans, fo);
  Interrupts::uninstall({SIGINT, SIGTERM, SIGUSR1});
  return rc;
}

}  // namespace

Command run_workers_command(run::ExecutorFactory executor) {
  return {"run-workers",
          "Run the workers of a spec's merlin.resources.workers, serving the studies queued "
          "from that spec by `merlin run`: here, or as batch jobs when their batch type is "
          "slurm, flux, lsf, lsf-srun or pbs (one worker per node; the job ends with the study)",
          [executor](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<RunWorkersArgs>();
            add_run_workers_flags(sub, a->options);
            add_broker_flags(sub, a->broker);
            return [a, executor] {
              reclaim_spec(a->options.vars, a->options.spec);
              return run_workers(*a, executor);
            };
          }};
}

void add_run_workers_flags(CLI::App& sub, RunWorkersOptions& o) {
  RunWorkersOptions* a = &o;
  sub.add_option("spec", a->spec, "The study spec (YAML)");
  sub.add_option("--vars", a->vars, "Override env.variables: KEY=VALUE ...");
  sub.add_option("--steps", a->steps, "Only serve the queues of these steps");
  sub.add_option("--worker", a->workers, "Only start these workers (by name)");
  sub.add_option("--worker-args", a->worker_args,
                 "Celery flags for every worker, as Merlin's (only --concurrency "
                 "is used: it overrides the spec's)");
  sub.add_option_function<long long>(
      "--concurrency", [a](const long long& n) { a->concurrency = n; },
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
                 "worker takes it over (renewed every third of it); a worker that could "
                 "not renew a task for that long ends its step and drops it (fencing)")
      ->capture_default_str();
  sub.add_option("--dead-after", a->dead_after_seconds,
                 "Seconds without a heartbeat after which a worker counts as dead: "
                 "the tasks it held go back to the queue at once, whatever their "
                 "lease, and a worker whose beats went unrecorded that long ends its "
                 "running steps (at least 3; 0: wait for the lease only)")
      ->capture_default_str();
  add_kill_wait_option(sub, a->kill_wait);
}

Result<RunWorkersOptions> parse_run_workers_line(const std::vector<std::string>& words) {
  CLI::App app;
  app.fallthrough();  // --log-level also after the subcommand, as in main.cc
  std::string level = "info";
  app.add_option("--log-level,--level", level);
  auto* sub = app.add_subcommand("run-workers");
  RunWorkersOptions o;
  BrokerFlags broker;
  add_run_workers_flags(*sub, o);
  add_broker_flags(*sub, broker);
  std::vector<std::string> args = {"merlin"};
  args.insert(args.end(), words.begin(), words.end());
  std::vector<char*> argp;
  for (auto& w : args) argp.push_back(w.data());
  try {
    app.parse(static_cast<int>(argp.size()), argp.data());
  } catch (const CLI::ParseError& e) {
    return Error::bad_input(e.what());
  }
  reclaim_spec(o.vars, o.spec);
  o.log_level = log::level_name(log::parse_level(level));
  return o;
}

}  // namespace merlin::cli
