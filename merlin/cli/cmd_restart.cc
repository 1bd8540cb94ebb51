#include <CLI/CLI.hpp>

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/local_run.h"
#include "merlin/run/study_recovery.h"
#include "merlin/run/study_requeue.h"

namespace merlin::cli {
using namespace merlin::run;

int finish_local_run(const PreparedStudy& s, const LocalRunResult& r);

namespace {

struct RestartArgs {
  std::string workspace;
  long long jobs = 0;
  bool jobs_given = false;  ///< -j was on the command line (0 and negatives are refused)
  bool no_progress = false;
  bool local = false;  ///< --local: Merlin's form; a local workspace is restarted here anyway
  double kill_wait = std::chrono::duration<double>(kDefaultKillWait).count();
  BrokerFlags broker;
};

// A study the broker lost (flushed, restarted without persistence, another server): registered
// again from the workspace, with the tasks whose marker exists counted as done.
int rebuild(PreparedStudy& s, Backend& backend, const BrokerLocation& loc, bool progress) {
  const auto key = study_key_of(s.tokens.workspace);
  std::fprintf(stderr,
               "study %s is not in the broker at %s: reading what finished from the workspace's "
               "%llu task markers\n",
               key.c_str(), loc.display().c_str(),
               static_cast<unsigned long long>(s.graph->total_tasks()));
  auto r = rebuild_from_markers(s, backend, progress);
  if (!r) return report_error(r.error());
  std::fprintf(stderr,
               "re-queued study %s on %s: %llu/%llu tasks finished by their markers are kept, "
               "the other %llu are queued again in %llu messages; start workers with "
               "`merlin run-workers`\n",
               key.c_str(), loc.display().c_str(), static_cast<unsigned long long>(r->done),
               static_cast<unsigned long long>(r->tasks),
               static_cast<unsigned long long>(r->tasks - r->done),
               static_cast<unsigned long long>(r->messages));
  return kExitOk;
}

// A study queued in the broker: queued again from the progress kept there, or rebuilt from
// the workspace when the broker lost it.
int requeue(PreparedStudy& s, const BrokerFlags& flags, bool show_progress) {
  auto loc = resolve_broker(flags);
  if (!loc) return report_error(loc.error());
  auto key = study_key_of(s.tokens.workspace);
  auto backend = open_backend(*loc);
  if (!backend) return report_error(backend.error());
  auto held = broker_holds_study(s, **backend);
  if (!held) return report_error(held.error());
  if (!*held) return rebuild(s, **backend, *loc, show_progress);
  auto r = requeue_study(s, **backend, show_progress);
  if (!r) return report_error(r.error());
  std::fprintf(
      stderr,
      "re-queued study %s: %llu/%llu tasks finished are kept (%llu of them known by their "
      "marker only: their worker died before its commit), %llu failed ones run again, %llu "
      "messages queued (%llu old ones dropped); start workers with `merlin run-workers`\n",
      key.c_str(), static_cast<unsigned long long>(r->done),
      static_cast<unsigned long long>(r->total), static_cast<unsigned long long>(r->marked),
      static_cast<unsigned long long>(r->failed_again),
      static_cast<unsigned long long>(r->queued), static_cast<unsigned long long>(r->dropped));
  return kExitOk;
}

int restart(const RestartArgs& a) {
  int jobs = core_count();
  if (a.jobs_given) {
    auto j = check_slots(a.jobs, "-j/--jobs");
    if (!j) return report_error(j.error());
    jobs = *j;
  }
  auto reopened = reopen_options(a.workspace, current_dir());
  if (!reopened) return report_error(reopened.error());
  PrepareOptions po = *reopened;
  po.scratch.app_scratch = app_scratch();
  po.rank_env = rank_env_program();
  auto s = prepare_study(po);
  if (!s) return report_error(s.error());
  const bool queued = is_broker_workspace(a.workspace);
  // Running it here while it is queued in the broker would let workers run the same tasks.
  if (auto here = check_restart_here(a.workspace, queued, a.local); !here)
    return report_error(here.error());
  if (queued) return requeue(**s, a.broker, !a.no_progress);
  auto r = run_local(**s, {jobs, true, !a.no_progress, kill_wait_of(a.kill_wait)});
  if (!r) return report_error(r.error());
  return finish_local_run(**s, *r);
}

}  // namespace

Command restart_command() {
  return {"restart",
          "Finish an interrupted study without re-running finished tasks (local: run it here; "
          "queued in the broker: queue its unfinished work again)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<RestartArgs>();
            offer(sub.add_option("workspace", a->workspace, "The study's workspace directory")
                      ->required(),
                  Completion::kDirectory);
            auto* jobs = sub.add_option("-j,--jobs", a->jobs,
                                        "Concurrent tasks, 1 to 4096 (default: number of cores)");
            sub.add_flag("--no-progress", a->no_progress, "No progress lines on stderr");
            sub.add_flag("--local", a->local,
                         "Run it here (Merlin's flag; a study run with `run --local` restarts here "
                         "anyway; one queued in a broker is refused with --local)");
            add_kill_wait_option(sub, a->kill_wait);
            add_broker_flags(sub, a->broker);
            return [a, jobs] {
              a->jobs_given = jobs->count() > 0;
              return restart(*a);
            };
          }};
}

}  // namespace merlin::cli
