#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/monitor_web.h"
#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/plural.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/stop_control.h"
#include "merlin/run/study_monitor.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct MonitorArgs {
  std::string spec;
  std::vector<std::string> vars;
  std::vector<std::string> steps;  ///< --steps: only the queues of these steps
  double sleep_seconds = 60;  // Merlin's default: a monitor keeps an allocation, it need not poll often
  double stall_seconds = 300;
  std::string output_path;  ///< --web: where the spec's workspaces are
  BrokerFlags broker;
  WebFlags web;
};

// Sleeps `seconds`; with `interruptible` (--web installed the handler) returns early, false,
// on SIGINT or SIGTERM.
bool pause(double seconds, bool interruptible) {
  if (!interruptible) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return true;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (Interrupts::count() > 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Interrupts::count() == 0;
}

int monitor(const MonitorArgs& a, bool interruptible = false) {
  if (a.spec.empty()) return report_error(Error::bad_input("a spec file is required (see --help)"));
  if (a.sleep_seconds <= 0 || a.stall_seconds <= 0)
    return report_error(Error::bad_input("--sleep and --stall-timeout must be positive"));
  auto loaded = load_spec_with_vars(a.spec, a.vars);
  if (!loaded) return report_error(loaded.error());
  auto tokens = spec_tokens(loaded->spec);
  if (!tokens) return report_error(tokens.error());
  const std::string* name = &tokens->study_name;
  std::set<std::string> queues;  // --steps: the queues watched; empty: the study's pending work
  for (const auto& step : a.steps) {
    if (step == "all") {  // Merlin's default: the study's work
      queues.clear();
      break;
    }
    const auto* st = loaded->spec.find_step(step);
    if (st == nullptr) {
      std::vector<std::string> names;
      for (const auto& s : loaded->spec.steps) names.push_back(s.name);
      return report_error(Error::bad_input("--steps: " + a.spec + " has no step '" + step + "'" +
                                           spec::suggestion_suffix(step, names)));
    }
    queues.insert(st->run.task_queue);
  }
  auto loc = resolve_broker(a.broker);
  if (!loc) return report_error(loc.error());
  auto backend = open_backend(*loc);
  if (!backend) return report_error(backend.error());
  MonitorOptions mo;
  mo.study_name = *name;
  mo.queues = std::move(queues);
  mo.output_path = tokens->output_path;
  mo.stall_seconds = a.stall_seconds;
  auto outcome = watch_studies(**backend, mo, [&](const MonitorPoll& p) {
    std::fprintf(
        stderr, "monitor: %s: %llu/%llu tasks finished, %s pending, %s\n", name->c_str(),
        static_cast<unsigned long long>(p.totals.done),
        static_cast<unsigned long long>(p.totals.total),
        counted(p.pending, "message", "messages").c_str(),
        counted(static_cast<std::uint64_t>(std::max(p.alive, 0)), "worker", "workers").c_str());
    return pause(a.sleep_seconds, interruptible);
  });
  if (!outcome) return report_error(outcome.error());
  const MonitorPoll& last = outcome->last;
  switch (outcome->kind) {
    case MonitorOutcome::Kind::kLost:
      for (const auto& l : outcome->lost)
        std::fprintf(stderr, "monitor: %s\n", l.describe(loc->display()).c_str());
      return kExitFailed;
    case MonitorOutcome::Kind::kDone:
      std::fprintf(stderr, "monitor: no work left for study %s (%llu/%llu tasks finished)\n",
                   name->c_str(), static_cast<unsigned long long>(last.totals.done),
                   static_cast<unsigned long long>(last.totals.total));
      return kExitOk;
    case MonitorOutcome::Kind::kStalled:
      return report_error(
          Error::runtime("monitor: " + std::to_string(last.pending) + " tasks of study " + *name +
                         " are waiting and no worker has served them for " +
                         std::to_string(static_cast<long long>(a.stall_seconds)) +
                         " s; start some with `merlin run-workers " + a.spec + "`"));
    case MonitorOutcome::Kind::kInterrupted:
      std::fprintf(stderr, "monitor: interrupted\n");
      return kExitFailed;
  }
  return kExitFailed;
}

// --web: the page of the study TARGET names, served while `monitor` watches a broker study
// of a spec (its verdict is the exit code), or alone until interrupted for a workspace given
// as a directory or a local run.
int monitor_web(const MonitorArgs& a) {
  if (a.spec.empty()) return report_error(Error::bad_input("a spec file is required (see --help)"));
  if (a.sleep_seconds <= 0 || a.stall_seconds <= 0)
    return report_error(Error::bad_input("--sleep and --stall-timeout must be positive"));
  auto session = WebSession::open(a.spec, a.output_path, a.broker, a.web);
  if (!session) return report_error(session.error());
  Interrupts::install({SIGINT, SIGTERM});
  auto url = (*session)->serve();
  if (!url) {
    std::fprintf(stderr, "merlin: monitor --web: %s\n", url.error().message.c_str());
    return kExitAddressUnavailable;
  }
  std::printf("merlin monitor: status page at %s\n", url->c_str());
  std::fflush(stdout);
  const bool watch = (*session)->distributed() && std::filesystem::is_regular_file(a.spec);
  int code = kExitOk;
  if (watch) {
    code = monitor(a, true);
    if (!a.web.keep_serving || Interrupts::count() > 0) return code;
    std::fprintf(stderr, "monitor: still serving (--keep-serving) until interrupted\n");
  } else {
    std::fprintf(stderr, "monitor: serving %s until interrupted (Ctrl-C)\n",
                 (*session)->distributed() ? "the workspace's study" : "a local run's study");
  }
  while (Interrupts::count() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return code;
}

}  // namespace

Command monitor_command() {
  return {"monitor",
          "Block while the studies of a spec have work (keeps a batch allocation alive); exit 1 "
          "if no worker serves the waiting work for --stall-timeout seconds, or if the broker "
          "lost unfinished work (flushed, restarted empty)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<MonitorArgs>();
            sub.add_option("spec", a->spec,
                           "The study spec (YAML); with --web also a workspace directory");
            sub.add_option("--vars", a->vars, "KEY=VALUE overrides used at `merlin run`");
            sub.add_option("--steps", a->steps,
                           "Watch only the work of these steps (their queues), as Merlin's "
                           "--steps; default (or `all`): all of the study's work");
            sub.add_option("--sleep", a->sleep_seconds, "Seconds between checks")
                ->capture_default_str();
            sub.add_option("--stall-timeout", a->stall_seconds,
                           "Seconds of waiting work with no worker before giving up (exit 1)")
                ->capture_default_str();
            sub.add_option("-o,--output-path", a->output_path,
                           "--web with a spec: look for its workspaces in this directory");
            add_web_flags(sub, a->web);
            add_broker_flags(sub, a->broker);
            add_task_server_option(sub);
            return [a] {
              reclaim_spec(a->vars, a->spec);
              return a->web.on ? monitor_web(*a) : monitor(*a);
            };
          }};
}

}  // namespace merlin::cli
