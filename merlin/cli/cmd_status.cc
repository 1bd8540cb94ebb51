#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>

#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/status_broker.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/local_run.h"
#include "merlin/run/status_report.h"
#include "merlin/run/status_source.h"
#include "merlin/core/util/files.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct StatusArgs {
  std::string target;
  std::string format = "table";
  std::string dump;         ///< --dump FILE: also written there, CSV or JSON by its extension
  std::string output_path;  ///< -o: where a spec's workspaces are, instead of OUTPUT_PATH
  bool cb_help = false;     ///< Merlin's colour-blind legend: here, what each column counts
  std::size_t trials = 10;  ///< --trials N: each search's best N trials (0: all)
  bool searches = false;    ///< --searches: the leaderboards alone (JSON: an array of searches)
  BrokerFlags broker;
};

int status(const StatusArgs& a) {
  auto parsed = report::parse_format(a.format);
  if (!parsed) return report_error(parsed.error());
  const StatusFormat fmt = *parsed;

  std::optional<StatusFormat> dump;
  if (!a.dump.empty()) {
    auto d = report::dump_format(a.dump);
    if (!d) return report_error(d.error());
    dump = *d;
  }
  if (a.searches && (fmt == StatusFormat::kCsv || dump == StatusFormat::kCsv))
    return report_error(Error::bad_input(
        "--searches prints a table or JSON, not CSV (each search's trials are in the trials.csv "
        "it leaves in its directory)"));
  auto at = open_for_status(a.target, current_dir(), a.output_path);
  if (!at) return report_error(at.error());
  const std::string& ws = at->workspace;
  auto s = &at->study;
  // A broker study: from the broker it was queued on, or from its journals once finished
  // (status_source.h); a local run: from its journal.
  StatusSource source;
  const bool queued = is_broker_workspace(ws);
  if (queued) {
    auto src = open_status_source_of(ws, a.broker);
    if (!src) return report_error(src.error());
    source = std::move(*src);
    if (!source.note.empty()) std::fprintf(stderr, "merlin: note: %s\n", source.note.c_str());
  }
  Backend* backend = source.backend.get();
  // The store the searches' standings come from: the broker's, or the local run's journal
  // replayed (a finished broker study read from its task journals shows no searches).
  std::unique_ptr<StateStore> store;
  if (backend) {
    store = backend->store(study_key_of(ws));
  } else if (!queued) {
    auto st = journal_store(**s);
    if (!st) return report_error(st.error());
    store = std::move(*st);
  }
  auto progress = store ? store->progress() : task_journals_progress(**s);
  if (!progress) return report_error(progress.error());
  std::vector<SearchBoard> searches;
  if (store) {
    // A status without the leaderboards is still a status (as without the running counts).
    auto b = search_boards(*(*s)->graph, *store);
    if (b)
      searches = std::move(*b);
    else
      std::fprintf(stderr, "merlin: note: the searches' trials could not be read: %s\n",
                   b.error().message.c_str());
  }
  std::vector<std::uint32_t> running;
  if (backend) {
    // Tasks in flight, from the broker; a status without them is still a status.
    auto r = backend->studies().running(study_key_of(ws), (*s)->graph->instances().size());
    if (r) running = std::move(*r);
  } else if (!queued) {
    running = live_running(**s);
  }
  auto rows = step_status(*(*s)->graph, *progress, running);
  if (fmt == StatusFormat::kTable) std::printf("%s\n", ws.c_str());
  std::fputs(status_document(rows, searches, a.trials, fmt, a.searches).c_str(), stdout);
  if (a.cb_help && fmt == StatusFormat::kTable)
    std::fputs(
        "\nThe columns are words, not colours: DONE finished with MERLIN_SUCCESS (or "
        "MERLIN_STOP_WORKERS); FAILED with MERLIN_SOFT_FAIL or MERLIN_HARD_FAIL; RUNNING now; "
        "QUEUED not finished and not running. `merlin detailed-status` lists each task.\n",
        stdout);
  if (dump) {
    auto w =
        files::write(a.dump, status_document(rows, searches, a.trials, *dump, a.searches), 0644);
    if (!w) return report_error(w.error());
    std::fprintf(stderr, "status written to %s\n", a.dump.c_str());
  }
  return kExitOk;
}

}  // namespace

Command status_command() {
  return {"status", "Per-step progress of a study (a spec: its newest workspace)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<StatusArgs>();
            sub.add_option("target", a->target, "A spec file or a workspace directory")->required();
            offer_values(
                sub.add_option("--format", a->format,
                               "An aligned table, JSON or CSV (JSON and CSV: the step rows; the "
                               "table is followed by the searches' leaderboards)")
                    ->capture_default_str(),
                {"table", "json", "csv"});
            sub.add_option("--trials", a->trials,
                           "Each search's leaderboard (a tune: step, docs/tuning.md) shows its "
                           "best N trials; 0 shows all")
                ->capture_default_str();
            sub.add_flag("--searches", a->searches,
                         "Only the searches' leaderboards (tune: steps, docs/tuning.md); with "
                         "--format json, an array of search objects (docs/json-output.md)");
            sub.add_option("--dump", a->dump,
                           "Also write the status to this file, CSV or JSON by its extension "
                           "(.csv, .json), as Merlin's --dump");
            sub.add_option("-o,--output-path", a->output_path,
                           "With a spec: look for its workspaces in this directory instead of "
                           "its OUTPUT_PATH");
            sub.add_flag("--cb-help", a->cb_help,
                         "Merlin's colour-blind help: this table has no colours, so it explains "
                         "what each column counts");
            sub.add_flag("--no-prompts")->description(
                "Merlin's flag against questions; this status never asks (a spec means its "
                "newest workspace)");
            add_broker_flags(sub, a->broker);
            add_task_server_option(sub);
            return [a] { return status(*a); };
          }};
}

}  // namespace merlin::cli
