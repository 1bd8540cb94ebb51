// `merlin database info|get|delete`: Merlin 2.0's command, answered from the broker's study
// records and progress, the runs' specs (their workers) and the workers' heartbeats
// (merlin/run/database_view.h). This file gathers the records and prints.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/core/spec/spec_loader.h"
#include "merlin/run/database_view.h"
#include "merlin/run/progress_totals.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct DatabaseArgs {
  std::string what;
  std::vector<std::string> ids;
  BrokerFlags broker;
};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The workers a run's spec defines, from the expanded spec its workspace keeps; a workspace
// that no longer has it (moved, deleted) is named on stderr and adds none.
void add_spec_workers(DbView& view, const DbRun& run) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(run.workspace + "/merlin_info", ec)) {
    const std::string path = e.path().string();
    if (path.size() < 14 || path.compare(path.size() - 14, 14, ".expanded.yaml") != 0) continue;
    auto loaded = spec::load_spec(path);
    if (!loaded) {
      std::fprintf(stderr, "merlin: %s: its workers are not shown: %s\n", path.c_str(),
                   loaded.error().message.c_str());
      return;
    }
    for (const auto& w : loaded->spec.workers) {
      std::vector<std::string> queues;
      for (const auto& step : w.steps)
        if (const auto* s = loaded->spec.find_step(step)) queues.push_back(s->run.task_queue);
      add_logical_worker(view, run.id, w.name, std::move(queues));
    }
    return;
  }
  if (ec)
    std::fprintf(stderr, "merlin: run %s: %s/merlin_info cannot be read (%s): its workers are not "
                 "shown\n", run.id.c_str(), run.workspace.c_str(), ec.message().c_str());
}

Result<DbView> gather(Backend& backend) {
  DbView view;
  StudyRegistry& studies = backend.studies();
  auto list = studies.list();
  if (!list) return list.error();
  for (const auto& s : *list) {
    DbRun run{s.key, s.workspace, s.name, {}, 0, 0, 0, false};
    if (auto stats = studies.queue_stats(s.key))
      for (const auto& q : *stats) run.queues.push_back(q.queue);
    if (auto progress = backend.store(s.key)->progress()) {
      const auto t = totals_of(*progress);
      run.done = t.done;
      run.total = t.total;
      run.failed = t.failed;
      run.progress_known = true;
    }
    add_spec_workers(view, run);
    view.runs.push_back(std::move(run));
  }
  auto workers = backend.workers().list();
  if (!workers) return workers.error();
  view.physical = std::move(*workers);
  std::sort(view.physical.begin(), view.physical.end(),
            [](const WorkerRecord& a, const WorkerRecord& b) { return a.id < b.id; });
  return view;
}

int database(const std::string& sub, const DatabaseArgs& a) {
  if (sub == "delete") {
    std::fprintf(stderr,
                 "merlin: database delete: this build keeps no database of its own; its records "
                 "are the broker's. `merlin purge SPEC` removes a study's queued tasks, a worker's "
                 "heartbeat goes when it stops (`merlin stop-workers`), and a workspace is "
                 "removed with rm (docs/cli.md#merlin-database)\n");
    return kExitBadInput;
  }
  if (sub == "get")  // bad input is told before any server is asked
    if (auto checked = select_entries(DbView{}, a.what, a.ids, 0); !checked)
      return report_error(checked.error());
  auto loc = resolve_broker(a.broker);
  if (!loc) return report_error(loc.error());
  auto backend = open_backend(*loc);
  if (!backend) return report_error(backend.error());
  auto view = gather(**backend);
  if (!view) return report_error(view.error());
  if (sub == "info") {
    auto version = (*backend)->server_version();
    if (!version) return report_error(version.error());
    // "redis 7.0.15" -> "7.0.15", as Merlin shows it beside the type.
    const std::string kind = (*backend)->kind().str();
    std::string v = *version;
    if (v.rfind(kind + " ", 0) == 0) v.erase(0, kind.size() + 1);
    std::fputs(render_info(*view, kind, v, loc->display()).c_str(), stdout);
    return kExitOk;
  }
  auto selected = select_entries(*view, a.what, a.ids, now_ms());
  if (!selected) return report_error(selected.error());
  std::fputs(selected->text.c_str(), stdout);
  for (const auto& id : selected->missing)
    std::fprintf(stderr, "merlin: database get %s: no entry '%s' (at %s)\n", a.what.c_str(),
                 id.c_str(), loc->display().c_str());
  if (selected->text.empty() && selected->missing.empty())
    std::fprintf(stderr, "merlin: database get %s: nothing on record at %s\n", a.what.c_str(),
                 loc->display().c_str());
  return selected->missing.empty() ? kExitOk : kExitFailed;
}

}  // namespace

Command database_command() {
  return {"database",
          "Merlin 2.0's database view: studies, runs and workers on record, from the broker's "
          "study records, the runs' specs and the workers' heartbeats (info, get)",
          [](CLI::App& sub) -> std::function<int()> {
            sub.require_subcommand(1);
            auto a = std::make_shared<DatabaseArgs>();
            auto chosen = std::make_shared<std::string>();
            auto* info = sub.add_subcommand(
                "info", "The broker's kind, version and address, and how many studies, runs, "
                        "logical and physical workers it has on record");
            add_broker_flags(*info, a->broker);
            info->callback([chosen] { *chosen = "info"; });
            auto* get = sub.add_subcommand(
                "get", "Print entries: all-studies, study NAME..., all-runs, run ID|WORKSPACE..., "
                       "all-logical-workers, logical-worker NAME..., all-physical-workers, "
                       "physical-worker ID|NAME..., everything (exit 1 when an id has no entry)");
            get->add_option("what", a->what, "Which entries")->required();
            get->add_option("ids", a->ids, "The entries' ids (for study, run, logical-worker, "
                                           "physical-worker)");
            add_broker_flags(*get, a->broker);
            get->callback([chosen] { *chosen = "get"; });
            auto* del = sub.add_subcommand(
                "delete", "Not here: this build keeps no database of its own (the message names "
                          "the commands that remove each kind of record)");
            del->add_option("entries", a->ids, "What would be deleted (ignored)");
            del->callback([chosen] { *chosen = "delete"; });
            return [a, chosen] { return database(*chosen, *a); };
          }};
}

}  // namespace merlin::cli
