// `merlin detailed-status`: Merlin's task-by-task status, with its filters.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/cli/status_broker.h"
#include "merlin/core/report/format.h"
#include "merlin/core/report/text_writer.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/local_run.h"
#include "merlin/run/prepared_study.h"
#include "merlin/run/task_details.h"
#include "merlin/run/task_selection.h"
#include "merlin/run/task_table.h"
#include "merlin/core/util/files.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct DetailedArgs {
  std::string target;
  std::string format = "table";
  std::string layout = "default";
  std::string dump;
  std::string output_path;
  std::vector<std::string> steps, task_queues, task_status, return_code, workers;
  std::uint64_t max_tasks = 0;
  BrokerFlags broker;
};

// The default text layout: a table per step under "STEP (queue Q, N tasks)", without the step
// and queue columns.
std::string task_tables_by_step(const std::vector<TaskRow>& tasks) {
  std::string out;
  for (std::size_t i = 0; i < tasks.size();) {
    std::size_t j = i;
    while (j < tasks.size() && tasks[j].step == tasks[i].step) ++j;
    report::Table t = task_table({tasks.begin() + i, tasks.begin() + j}, true);
    for (std::size_t c : {6, 0}) {  // QUEUE, then STEP
      t.columns.erase(t.columns.begin() + c);
      for (auto& row : t.rows) row.erase(row.begin() + c);
    }
    out += (i ? "\n" : "") + tasks[i].step + " (queue " + tasks[i].queue + ", " +
           std::to_string(j - i) + (j - i == 1 ? " task" : " tasks") + ")\n" + report::to_text(t);
    i = j;
  }
  return out;
}

int detailed_status(const DetailedArgs& a) {
  auto fmt = report::parse_format(a.format);
  if (!fmt) return report_error(fmt.error());
  if (a.layout != "default" && a.layout != "table")
    return report_error(Error::bad_input("--layout: default or table, not '" + a.layout + "'"));
  std::optional<report::Format> dump;
  if (!a.dump.empty()) {
    auto d = report::dump_format(a.dump);
    if (!d) return report_error(d.error());
    dump = *d;
  }
  TaskFilter filter;
  auto statuses = parse_statuses(a.task_status);
  if (!statuses) return report_error(statuses.error());
  filter.statuses = *statuses;
  auto codes = parse_return_codes(a.return_code);
  if (!codes) return report_error(codes.error());
  filter.return_codes = *codes;
  filter.workers.insert(a.workers.begin(), a.workers.end());
  filter.max_tasks = a.max_tasks;

  auto at = open_for_status(a.target, current_dir(), a.output_path);
  if (!at) return report_error(at.error());
  const std::string& ws = at->workspace;
  const PreparedStudy& s = *at->study;
  auto wanted = chosen_instances(s, a.steps, a.task_queues);
  if (!wanted) return report_error(wanted.error());

  // A broker study: the broker it was queued on decides what is done, or its journals once
  // it finished (status_source.h); a local run: its journal.
  StatusSource source;  // outlives `store`, which its backend serves
  std::unique_ptr<StateStore> store;
  bool live = true;
  if (is_broker_workspace(ws)) {
    auto src = open_status_source_of(ws, a.broker);
    if (!src) return report_error(src.error());
    source = std::move(*src);
    if (!source.note.empty()) std::fprintf(stderr, "merlin: note: %s\n", source.note.c_str());
    if (source.backend)
      store = source.backend->store(study_key_of(ws));
    else
      live = false;  // finished: nothing runs it any more
  } else {
    live = !live_running(s).empty();
  }
  auto tasks = list_tasks(s, *wanted, filter, store.get(), live);
  if (!tasks) return report_error(tasks.error());

  const std::string out =
      a.layout == "default" && *fmt == report::Format::kTable
          ? task_tables_by_step(*tasks)
          : report::render(task_table(*tasks, *fmt == report::Format::kTable), *fmt);
  if (*fmt == report::Format::kTable) std::printf("%s\n", ws.c_str());
  std::fputs(out.c_str(), stdout);
  if (*fmt == report::Format::kTable && tasks->empty())
    std::printf("no task matches%s\n", a.steps.empty() && a.task_queues.empty() &&
                                               filter.statuses.empty() &&
                                               filter.return_codes.empty() && filter.workers.empty()
                                           ? ""
                                           : " the filters");
  if (dump) {
    auto w = files::write(a.dump, report::render(task_table(*tasks, false), *dump), 0644);
    if (!w) return report_error(w.error());
    std::fprintf(stderr, "detailed status written to %s\n", a.dump.c_str());
  }
  return kExitOk;
}

}  // namespace

Command detailed_status_command() {
  return {
      "detailed-status",
      "Task-by-task status of a study (a spec: its newest workspace), with Merlin's filters",
      [](CLI::App& sub) -> std::function<int()> {
        auto a = std::make_shared<DetailedArgs>();
        sub.footer(
            "Each task's directory, status (INITIALIZED, RUNNING, FINISHED, FAILED, "
            "CANCELLED), return code (MERLIN_SUCCESS, MERLIN_SOFT_FAIL, MERLIN_HARD_FAIL, "
            "MERLIN_STOP_WORKERS), run time, restarts, queue, worker and times, from the "
            "task journals in merlin_info/ and, for a study queued in a broker, the broker's "
            "record of what is done. --steps and --task-queues choose steps; a task is then "
            "shown when it matches any of --task-status, --return-code and --workers (as in "
            "Merlin). Output is never paged: --max-tasks limits it.");
        sub.add_option("target", a->target, "A spec file or a workspace directory")->required();
        sub.add_option("--steps", a->steps, "Only these steps (`all`: every step)");
        sub.add_option("--task-queues", a->task_queues, "Only the steps of these queues");
        offer_values(
            sub.add_option("--task-status", a->task_status,
                           "Tasks in these states: INITIALIZED RUNNING FINISHED FAILED CANCELLED "
                           "(and Merlin's DRY_RUN UNKNOWN, which never occur here); any case"),
            {"INITIALIZED", "RUNNING", "FINISHED", "FAILED", "CANCELLED", "DRY_RUN", "UNKNOWN"});
        offer_values(
            sub.add_option("--return-code", a->return_code,
                           "Tasks that ended so: SUCCESS SOFT_FAIL HARD_FAIL STOP_WORKERS (and "
                           "Merlin's RESTART RETRY DRY_SUCCESS UNRECOGNIZED, which never end a "
                           "task here); MERLIN_ prefix optional, any case"),
            {"SUCCESS", "SOFT_FAIL", "HARD_FAIL", "STOP_WORKERS", "RESTART", "RETRY", "DRY_SUCCESS",
             "UNRECOGNIZED"});
        sub.add_option("--workers", a->workers, "Tasks last run by these workers");
        sub.add_option("--max-tasks", a->max_tasks, "Show at most this many tasks")
            ->check(CLI::PositiveNumber);
        offer_values(
            sub.add_option("--layout", a->layout, "default: a table per step; table: one table")
                ->capture_default_str(),
            {"default", "table"});
        offer_values(sub.add_option("--format", a->format, "An aligned table, JSON or CSV")
                         ->capture_default_str(),
                     {"table", "json", "csv"});
        sub.add_option("--dump", a->dump,
                       "Also write the tasks to this file, CSV or JSON by its extension");
        sub.add_option("-o,--output-path", a->output_path,
                       "With a spec: look for its workspaces in this directory");
        sub.add_flag("--disable-pager")->description("Merlin's flag: this output is never paged");
        sub.add_flag("--disable-theme")->description("Merlin's flag: this output has no colours");
        sub.add_flag("--no-prompts")->description("Merlin's flag: this command never asks");
        add_broker_flags(sub, a->broker);
        add_task_server_option(sub);
        return [a] { return detailed_status(*a); };
      }};
}

}  // namespace merlin::cli
