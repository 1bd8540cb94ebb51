#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/plural.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/dry_run.h"
#include "merlin/run/local_run.h"
#include "merlin/run/status_report.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct RunArgs {
  std::string spec;
  bool local = false, dry = false, no_progress = false;
  std::vector<std::string> vars;
  std::string samples_file;
  bool lean = false;               ///< --lean: a lean workspace (docs/lean-workspace.md)
  std::string pgen;                ///< --pgen: refused (a Python module)
  std::vector<std::string> pargs;  ///< --pargs: refused with it
  long long jobs = 0;
  bool jobs_given = false;  ///< -j was on the command line (0 and negatives are refused)
  double kill_wait = std::chrono::duration<double>(kDefaultKillWait).count();
  BrokerFlags broker;
};

void print_warnings(const PreparedStudy& s) {
  for (const auto& w : s.warnings) std::fprintf(stderr, "%s\n", w.str().c_str());
}

// The lines Merlin's `run` logs that users and scripts grep (its integration suite does):
// the output directory's name and the sample count.
void announce_study(const PreparedStudy& s) {
  std::filesystem::path ws(s.tokens.workspace);
  log::info("OUTPUT_PATH: {}", ws.parent_path().filename().string());
  if (!s.samples_path.empty())
    log::info("{} {} loaded.", s.sample_count, s.sample_count == 1 ? "sample" : "samples");
}

int finish(const PreparedStudy& s, const LocalRunResult& r) {
  auto rows = step_status(*s.graph, r.progress, {});
  std::fputs(format_status(rows, StatusFormat::kTable).c_str(), stdout);
  std::fprintf(stderr, "%s: %llu/%llu tasks finished, %llu failed, in %.2f s (%.1f tasks/s)\n",
               s.tokens.workspace.c_str(), static_cast<unsigned long long>(r.done),
               static_cast<unsigned long long>(r.total), static_cast<unsigned long long>(r.failed),
               r.seconds, r.seconds > 0 ? static_cast<double>(r.report.executed) / r.seconds : 0.0);
  if (r.done < r.total)
    std::fprintf(stderr, "%s not run%s; `merlin restart %s` continues\n",
                 counted(r.total - r.done, "task", "tasks").c_str(),
                 r.report.stopped_by_step ? " (MERLIN_STOP_WORKERS)" : "",
                 s.tokens.workspace.c_str());
  for (const auto& q : r.report.stopped_queues)
    std::fprintf(stderr, "queue '%s' stopped by MERLIN_HARD_FAIL\n", q.c_str());
  bool complete = r.done == r.total;
  return (r.failed == 0 && complete) ? kExitOk : kExitFailed;
}

// Queues the study in the broker; on failure the new workspace goes again (nothing half-way).
// A study key still registered by a run whose workspace was deleted (same name, same second)
// is passed over: the study is prepared again one second later.
int enqueue(std::unique_ptr<PreparedStudy> study, PrepareOptions po, Backend& backend,
            const BrokerLocation& loc, const std::string& spec) {
  Result<EnqueueReport> r = Error::runtime("not queued");
  for (int attempt = 0;; ++attempt) {
    r = enqueue_study(*study, backend);
    if (r) break;
    std::error_code ec;
    std::filesystem::remove_all(study->tokens.workspace, ec);
    if (r.error().code != ErrorCode::kExists || attempt >= 60) return report_error(r.error());
    po.epoch++;
    auto again = prepare_study(po);
    if (!again) return report_error(again.error());
    study = std::move(*again);
  }
  const PreparedStudy& s = *study;
  std::printf("%s\n", s.tokens.workspace.c_str());
  std::fprintf(stderr,
               "queued study %s: %llu tasks in %llu messages on %s in %.3f s; start workers with "
               "`merlin run-workers %s`\n",
               study_key_of(s.tokens.workspace).c_str(), static_cast<unsigned long long>(r->tasks),
               static_cast<unsigned long long>(r->messages), loc.display().c_str(), r->seconds,
               spec.c_str());
  return kExitOk;
}

int run(const RunArgs& a) {
  auto vars = parse_vars(a.vars);
  if (a.spec.empty()) return report_error(Error::bad_input("a spec file is required (see --help)"));
  if (!vars) return report_error(vars.error());
  int jobs = core_count();
  if (a.jobs_given) {
    auto j = check_slots(a.jobs, "-j/--jobs");
    if (!j) return report_error(j.error());
    jobs = *j;
  }
  bool queue = !a.local && !a.dry;
  BrokerLocation loc;
  std::unique_ptr<Backend> backend;
  if (queue) {  // the server first: a refused connection leaves no workspace behind
    auto l = resolve_broker(a.broker);
    if (!l) return report_error(l.error());
    loc = *l;
    auto b = open_backend(loc);
    if (!b) return report_error(b.error());
    backend = std::move(*b);
    auto v = backend->server_version();
    if (!v) return report_error(v.error());
  }
  PrepareOptions po;
  po.spec_path = a.spec;
  po.vars = *vars;
  po.samples_file = a.samples_file;
  po.lean = a.lean;
  po.epoch = now_epoch();
  po.cwd = current_dir();
  po.scratch.app_scratch = app_scratch();
  po.rank_env = rank_env_program();
  auto s = prepare_study(po);
  if (!s) return report_error(s.error());
  print_warnings(**s);
  announce_study(**s);
  if (a.dry) {
    auto n = lay_out_study(**s, jobs, !a.no_progress);
    if (!n) return report_error(n.error());
    std::printf("%s\n", (*s)->tokens.workspace.c_str());
    std::fprintf(stderr, "dry run: %llu tasks laid out, nothing run\n",
                 static_cast<unsigned long long>(*n));
    return kExitOk;
  }
  if (queue) return enqueue(std::move(*s), po, *backend, loc, a.spec);
  log::info("study={} workspace={} tasks={} slots={}", (*s)->tokens.study_name,
            (*s)->tokens.workspace, (*s)->graph->total_tasks(), jobs);
  auto r = run_local(**s, {jobs, false, !a.no_progress, kill_wait_of(a.kill_wait)});
  if (!r) return report_error(r.error());
  return finish(**s, *r);
}

}  // namespace

int finish_local_run(const PreparedStudy& s, const LocalRunResult& r) { return finish(s, r); }

Command run_command() {
  return {"run",
          "Expand a study and queue it in the broker for `merlin run-workers` (--local: run it "
          "here, no server)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<RunArgs>();
            sub.add_option("spec", a->spec, "The study spec (YAML)");
            sub.add_flag("--local", a->local, "Run here with an in-process broker, no server");
            sub.add_flag("--dry", a->dry, "Lay out the workspace and scripts, run nothing");
            sub.add_flag("--lean", a->lean,
                         "Lean workspace: per sample only its directory; output in per-worker "
                         "logs read with `merlin logs` (as merlin.layout: lean; "
                         "docs/lean-workspace.md)");
            sub.add_option("--vars", a->vars, "Override env.variables: KEY=VALUE ...");
            sub.add_option("--samplesfile", a->samples_file,
                           "Samples file to use instead of merlin.samples.file (no generate)");
            auto* jobs = sub.add_option("-j,--jobs", a->jobs,
                                        "Concurrent tasks, 1 to 4096 (default: number of cores)");
            sub.add_flag("--no-progress", a->no_progress, "No progress lines on stderr");
            add_kill_wait_option(sub, a->kill_wait);
            add_broker_flags(sub, a->broker);
            // Merlin's: --no-errors (ignores Flux errors in its tests) changes nothing here;
            // --pgen/--pargs need Python, refused with what to do instead.
            sub.add_flag("--no-errors")
                ->description(
                    "Merlin's flag for ignoring Flux errors in tests: accepted, changes nothing");
            auto* pgen = sub.add_option("--pgen", a->pgen,
                                        "Merlin's parameter generator (a Python file): "
                                        "refused, see docs/merlin-compatibility.md");
            auto* pargs = sub.add_option("--pargs", a->pargs, "Arguments for --pgen: refused");
            return [a, jobs, pgen, pargs] {
              if (pgen->count() > 0 || pargs->count() > 0) {
                return report_error(Error::bad_input(
                    "--pgen/--pargs: a parameter generator is a Python module that Merlin "
                    "imports and calls; this C++ merlin cannot run it. Write its values in the "
                    "spec's global.parameters (or have your generator print them: `python3 "
                    "pgen.py > params.yaml` and paste them), or turn them into samples "
                    "(merlin.samples, `--samplesfile`), which scale to millions of rows"));
              }
              a->jobs_given = jobs->count() > 0;
              reclaim_spec(a->vars, a->spec);
              return run(*a);
            };
          }};
}

}  // namespace merlin::cli
