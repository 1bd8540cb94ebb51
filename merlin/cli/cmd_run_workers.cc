#include <signal.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_state_store.h"
#include "adapters/broker/redis/redis_workers.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/celery_args.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/dist_study.h"
#include "merlin/cli/status_report.h"
#include "merlin/util/log.h"
#include "workers/process_executor.h"
#include "workers/worker.h"

namespace merlin::cli {
namespace {

struct RunWorkersArgs {
  std::string spec;
  std::vector<std::string> vars, steps, workers;
  std::string worker_args;  ///< Merlin's --worker-args: Celery flags for every worker
  int concurrency = 0;
  bool echo = false, exit_when_done = false;
  double lease_seconds = 60;
  BrokerFlags broker;
};

// One `merlin.resources.workers` entry, as this process will run it.
struct WorkerPlan {
  std::string name;
  std::vector<std::string> queues;
  int slots = 1;
  std::string id;  ///< "<host>.<pid>.<name>": consumer name and registry id
};

// First SIGINT/SIGTERM/SIGUSR1: drain (running tasks finish and commit, reserved ones go
// back). Second: running steps are ended and their tasks handed back uncommitted.
std::atomic<int> g_signals{0};
extern "C" void on_worker_signal(int) { g_signals.fetch_add(1); }

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

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
    p.slots = a.concurrency > 0         ? a.concurrency
              : extra->concurrency ? *extra->concurrency
                                   : celery->concurrency.value_or(core_count());
    p.id = host + "." + std::to_string(::getpid()) + "." + w.name;
    out.push_back(std::move(p));
  }
  if (out.empty()) return Error::bad_input("no worker of the spec serves the chosen steps");
  return out;
}

std::string shell_word(const std::string& s) {
  if (s.find_first_of(" \t'\"$`\\;&|<>()*?[]{}!~#") == std::string::npos && !s.empty()) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int echo(const RunWorkersArgs& a, const std::vector<WorkerPlan>& plans) {
  for (const auto& p : plans) {
    std::string line =
        "merlin run-workers " + shell_word(a.spec) + " --worker " + shell_word(p.name);
    line += " --concurrency " + std::to_string(p.slots);
    for (const auto& s : a.steps) line += " --steps " + shell_word(s);
    for (const auto& v : a.vars) line += " --vars " + shell_word(v);
    if (a.exit_when_done) line += " --exit-when-done";
    std::printf("%s\n", line.c_str());
  }
  return kExitOk;
}

class Fleet {
 public:
  Fleet(const BrokerLocation& loc, std::string spec_name, std::vector<WorkerPlan> plans,
        std::chrono::milliseconds lease)
      : loc_(loc),
        spec_name_(std::move(spec_name)),
        plans_(std::move(plans)),
        lease_(lease),
        registry_(redis_settings(loc)) {}

  int run(bool exit_when_done) {
    RedisStudies studies(redis_settings(loc_));
    bool announced_wait = false;
    int status = kExitOk;
    while (!stopping()) {
      auto named = studies_named(studies, spec_name_);
      if (!named) {
        log::error("{}", named.error().message);
        status = kExitFailed;
        break;
      }
      const StudyRecord* next = nullptr;
      for (const auto& r : *named) {
        if (skipped_.count(r.key) || !servable(r.key)) continue;
        auto p = studies.pending(r.key);
        if (!p) {
          log::error("{}", p.error().message);
          return finish(kExitFailed);
        }
        if (*p > 0) {
          next = &r;
          break;
        }
      }
      if (!next) {
        if (exit_when_done) {
          log::info("no work left for study name={}: exiting", spec_name_);
          break;
        }
        if (!announced_wait) log::info("waiting for work on study name={}", spec_name_);
        announced_wait = true;
        if (!idle_second("")) break;
        continue;
      }
      announced_wait = false;
      auto served = serve(*next);
      if (!served) {
        log::error("{}", served.error().message);
        status = kExitFailed;
        break;
      }
      // Nothing our workers could take (the work left is on queues a hard fail stopped, or
      // held by other workers): wait a second instead of reopening the study at once.
      if (!*served && !idle_second("")) break;
    }
    return finish(status);
  }

 private:
  bool stopping() const { return stop_requested_ || g_signals.load() > 0; }

  int finish(int status) {
    for (const auto& p : plans_) (void)registry_.remove(p.id);
    return status;
  }

  // A study is worth serving if some worker has a queue there not stopped by a hard fail.
  bool servable(const std::string& key) {
    const auto& stopped = stopped_queues_[key];
    for (const auto& p : plans_)
      for (const auto& q : p.queues)
        if (!stopped.count(q)) return true;
    return false;
  }

  // Heartbeats for every worker; false when a stop was asked for.
  bool beat(const std::string& study) {
    for (const auto& p : plans_) {
      WorkerRecord w{p.id,       p.name, host_name(), static_cast<int>(::getpid()),
                     spec_name_, study,  p.queues,    p.slots,
                     0};
      auto b = registry_.beat(w);
      if (!b) {
        log::warn("heartbeat failed worker={} error=\"{}\"", p.name, b.error().message);
        continue;
      }
      if (*b) {
        log::info("stop requested by `merlin stop-workers` worker={}", p.name);
        stop_requested_ = true;
      }
    }
    return !stop_requested_;
  }

  // Waits one second between polls for new work, heartbeating; false if stopped.
  bool idle_second(const std::string& study) {
    if (!beat(study)) return false;
    for (int i = 0; i < 5 && !stopping(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return !stopping();
  }

  // "progress study=K 4520/100000 tasks (4.5%)  1234.5/s  ETA 1m17s" (the rate is the
  // study's, over this process's time on it: every worker's commits count).
  static std::pair<std::uint64_t, std::uint64_t> done_total(RedisStateStore& store) {
    std::uint64_t done = 0, total = 0;
    if (auto p = store.progress())
      for (const auto& i : *p) {
        done += i.done;
        total += i.total;
      }
    return {done, total};
  }

  static void log_progress(RedisStateStore& store, const std::string& key,
                           Clock::time_point since, std::uint64_t done_before) {
    auto [done, total] = done_total(store);
    if (total == 0) return;
    double secs = std::chrono::duration<double>(Clock::now() - since).count();
    auto line = progress_line(done - std::min(done, done_before), total - done_before, secs);
    log::info("progress study={} {} ({}/{} done in all)", key, line, done, total);
  }

  /// Runs the workers on one study until it has no work for them; true if they did any.
  Result<bool> serve(const StudyRecord& rec) {
    auto s = reopen_study(rec.workspace);
    if (!s) {
      log::error("cannot open the workspace of study={} workspace={} error=\"{}\"; skipping it",
                 rec.key, rec.workspace, s.error().message);
      skipped_.insert(rec.key);
      return false;
    }
    log::info("serving study={} workspace={}", rec.key, rec.workspace);
    Plan plan(*(*s)->graph);
    RedisStateStore store(redis_settings(loc_, rec.key));
    auto all_queues = study_queues(*(*s)->graph);
    auto& stopped = stopped_queues_[rec.key];
    std::vector<std::string> idle_queues;
    for (const auto& q : all_queues)
      if (!stopped.count(q)) idle_queues.push_back(q);

    struct Running {
      const WorkerPlan* plan;
      std::unique_ptr<RedisBroker> broker;
      std::unique_ptr<ProcessExecutor> executor;
      std::unique_ptr<Worker> worker;
      Result<WorkerReport> report = Error::runtime("not run");
    };
    std::vector<std::unique_ptr<Running>> fleet;
    for (const auto& p : plans_) {
      WorkerOptions wo;
      for (const auto& q : p.queues)
        if (!stopped.count(q)) wo.queues.push_back(q);
      if (wo.queues.empty()) continue;
      wo.slots = p.slots;
      wo.idle_queues = idle_queues;
      wo.lease_renewal = std::max(std::chrono::milliseconds(1), lease_ / 3);
      auto r = std::make_unique<Running>();
      r->plan = &p;
      RedisSettings rs = redis_settings(loc_, rec.key);
      rs.consumer = p.id;
      rs.lease = lease_;
      r->broker = std::make_unique<RedisBroker>(rs);
      r->executor = std::make_unique<ProcessExecutor>();
      r->worker =
          std::make_unique<Worker>(*r->broker, store, plan, *(*s)->renderer, *r->executor, wo);
      fleet.push_back(std::move(r));
    }
    std::vector<std::thread> threads;
    std::atomic<int> left{static_cast<int>(fleet.size())};
    for (auto& r : fleet)
      threads.emplace_back([&r, &left] {
        r->report = r->worker->run();
        left--;
      });
    // Control: signals, stop requests, heartbeats and progress lines while the workers run.
    int seen = 0;
    auto started = Clock::now();
    auto done_before = done_total(store).first;
    auto last_beat = Clock::now() - std::chrono::seconds(10);
    auto last_progress = Clock::now();
    bool drained = false;
    while (left.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      int sig = g_signals.load();
      if ((sig >= 1 || stop_requested_) && !drained) {
        drained = true;
        log::info("draining: running tasks finish and commit, reserved ones go back to the queue");
        for (auto& r : fleet) r->worker->request_stop();
      }
      if (sig >= 2 && seen < 2) {
        log::warn("second signal: ending running steps; their tasks go back uncommitted");
        for (auto& r : fleet) r->worker->abort();
      }
      seen = sig;
      if (Clock::now() - last_beat >= std::chrono::seconds(1)) {
        last_beat = Clock::now();
        beat(rec.key);
      }
      if (Clock::now() - last_progress >= std::chrono::seconds(10)) {
        last_progress = Clock::now();
        log_progress(store, rec.key, started, done_before);
      }
    }
    for (auto& t : threads) t.join();
    bool worked = false;
    for (auto& r : fleet) {
      if (!r->report) return r->report.error();
      const auto& w = *r->report;
      worked |= w.executed + w.skipped + w.splits > 0;
      log::info(
          "worker={} study={} executed={} succeeded={} failed={} requeued={} skipped={} "
          "splits={}",
          r->plan->name, rec.key, w.executed, w.succeeded, w.failed, w.requeued, w.skipped,
          w.splits);
      for (const auto& q : w.stopped_queues) stopped.insert(q);
      if (w.stopped_by_step) {
        log::warn("MERLIN_STOP_WORKERS: this process stops");
        stop_requested_ = true;
      }
    }
    return worked;
  }

  BrokerLocation loc_;
  std::string spec_name_;
  std::vector<WorkerPlan> plans_;
  std::chrono::milliseconds lease_;
  RedisWorkerRegistry registry_;
  bool stop_requested_ = false;
  std::set<std::string> skipped_;
  std::map<std::string, std::set<std::string>> stopped_queues_;
};

int run_workers(const RunWorkersArgs& a) {
  if (a.spec.empty()) return report_error(Error::bad_input("a spec file is required (see --help)"));
  auto vars = parse_vars(a.vars);
  if (!vars) return report_error(vars.error());
  spec::LoadOptions lo;
  lo.vars = *vars;
  auto loaded = spec::load_spec(a.spec, lo);
  if (!loaded) return report_error(loaded.error());
  for (const auto& w : loaded->warnings) std::fprintf(stderr, "%s\n", w.str().c_str());
  auto plans = plan_workers(loaded->spec, a);
  if (!plans) return report_error(plans.error());
  if (a.echo) return echo(a, *plans);
  if (a.lease_seconds < 0.1)
    return report_error(Error::bad_input("--lease must be at least 0.1 seconds"));
  auto name = spec_study_name(a.spec, *vars);
  if (!name) return report_error(name.error());
  auto loc = resolve_broker(a.broker);
  if (!loc) return report_error(loc.error());
  auto v = RedisStudies(redis_settings(*loc)).server_version();
  if (!v) return report_error(v.error());
  for (const auto& p : *plans) {
    std::string qs;
    for (const auto& q : p.queues) qs += (qs.empty() ? "" : ",") + q;
    log::info("worker={} queues={} slots={} broker={}", p.name, qs, p.slots, loc->display());
  }
  g_signals = 0;
  struct sigaction sa {};
  sa.sa_handler = on_worker_signal;
  for (int sig : {SIGINT, SIGTERM, SIGUSR1}) sigaction(sig, &sa, nullptr);
  auto lease = std::chrono::milliseconds(static_cast<long long>(a.lease_seconds * 1000));
  Fleet fleet(*loc, *name, *plans, lease);
  int rc = fleet.run(a.exit_when_done);
  for (int sig : {SIGINT, SIGTERM, SIGUSR1}) signal(sig, SIG_DFL);
  return rc;
}

}  // namespace

Command run_workers_command() {
  return {"run-workers",
          "Run the workers of a spec's merlin.resources.workers here, serving the studies "
          "queued from that spec by `merlin run`",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<RunWorkersArgs>();
            sub.add_option("spec", a->spec, "The study spec (YAML)");
            sub.add_option("--vars", a->vars, "Override env.variables: KEY=VALUE ...");
            sub.add_option("--steps", a->steps, "Only serve the queues of these steps");
            sub.add_option("--worker", a->workers, "Only start these workers (by name)");
            sub.add_option("--worker-args", a->worker_args,
                           "Celery flags for every worker, as Merlin's (only --concurrency "
                           "is used: it overrides the spec's)");
            sub.add_option("--concurrency", a->concurrency,
                           "Tasks each worker runs at once (overrides --concurrency in the "
                           "worker's args; default: number of cores)");
            sub.add_flag("--echo", a->echo,
                         "Print the command that starts each worker, start nothing");
            sub.add_flag("--exit-when-done", a->exit_when_done,
                         "Exit 0 once no study of this spec has work left (for batch jobs)");
            sub.add_option("--lease", a->lease_seconds,
                           "Seconds a reserved task stays ours without renewal before another "
                           "worker takes it over (renewed every third of it)")
                ->capture_default_str();
            add_broker_flags(sub, a->broker);
            return [a] {
              reclaim_spec(a->vars, a->spec);
              return run_workers(*a);
            };
          }};
}

}  // namespace merlin::cli
