// `query-workers` and `stop-workers`: the worker registry (heartbeats) seen from the CLI.
#include <fnmatch.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/core/report/format.h"
#include "merlin/run/broker_tables.h"
#include "merlin/run/dist_study.h"
#include "merlin/core/util/plural.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct WorkersArgs {
  std::string spec;
  std::vector<std::string> vars, queues, workers;
  std::string format = "table";
  BrokerFlags broker;
};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The registered workers that match the filters (all of them when none is given).
Result<std::vector<WorkerRecord>> matching(const WorkersArgs& a, WorkerRegistry& registry) {
  std::string name;
  if (!a.spec.empty()) {
    auto vars = parse_vars(a.vars);
    if (!vars) return vars.error();
    auto n = spec_study_name(a.spec, *vars);
    if (!n) return n.error();
    name = *n;
  }
  auto all = registry.list();
  if (!all) return all.error();
  std::vector<WorkerRecord> out;
  for (auto& w : *all) {
    if (!name.empty() && w.spec_name != name) continue;
    if (!a.queues.empty() &&
        std::none_of(w.queues.begin(), w.queues.end(), [&](const std::string& q) {
          return std::find(a.queues.begin(), a.queues.end(), q) != a.queues.end();
        }))
      continue;
    if (!a.workers.empty() &&
        std::none_of(a.workers.begin(), a.workers.end(), [&](const std::string& pattern) {
          return fnmatch(pattern.c_str(), w.name.c_str(), 0) == 0;
        }))
      continue;
    out.push_back(std::move(w));
  }
  std::sort(out.begin(), out.end(),
            [](const WorkerRecord& x, const WorkerRecord& y) { return x.id < y.id; });
  return out;
}

void add_filters(CLI::App& sub, WorkersArgs& a) {
  sub.add_option("--spec", a.spec, "Only workers serving the studies of this spec");
  sub.add_option("--vars", a.vars, "KEY=VALUE overrides of that spec");
  sub.add_option("--queues", a.queues, "Only workers reading one of these queues");
  sub.add_option("--workers", a.workers, "Only workers with these names (shell patterns)");
  add_broker_flags(sub, a.broker);
  add_task_server_option(sub);
}

int query(const WorkersArgs& a) {
  auto fmt = report::parse_format(a.format);
  if (!fmt) return report_error(fmt.error());
  auto loc = resolve_broker(a.broker);
  if (!loc) return report_error(loc.error());
  auto backend = open_backend(*loc);
  if (!backend) return report_error(backend.error());
  auto list = matching(a, (*backend)->workers());
  if (!list) return report_error(list.error());
  // As Merlin says it; the (empty) table still goes to stdout for scripts reading JSON or CSV.
  if (list->empty() && *fmt == report::Format::kTable)
    std::fprintf(stderr, "No workers found (at %s)\n", loc->display().c_str());
  std::fputs(report::render(worker_table(*list, now_ms()), *fmt).c_str(), stdout);
  return kExitOk;
}

int stop(const WorkersArgs& a) {
  auto loc = resolve_broker(a.broker);
  if (!loc) return report_error(loc.error());
  auto backend = open_backend(*loc);
  if (!backend) return report_error(backend.error());
  auto list = matching(a, (*backend)->workers());
  if (!list) return report_error(list.error());
  std::vector<std::string> ids;
  for (const auto& w : *list) ids.push_back(w.id);
  auto r = (*backend)->workers().request_stop(ids);
  if (!r) return report_error(r.error());
  std::fprintf(stderr, "asked %s to stop (they finish their running tasks first)\n",
               counted(ids.size(), "worker", "workers").c_str());
  for (const auto& id : ids) std::printf("%s\n", id.c_str());
  return kExitOk;
}

}  // namespace

Command query_workers_command() {
  return {"query-workers", "The workers connected to the broker, from their heartbeats",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<WorkersArgs>();
            add_filters(sub, *a);
            offer_values(sub.add_option("--format", a->format, "An aligned table, JSON or CSV")
                             ->capture_default_str(),
                         {"table", "json", "csv"});
            return [a] { return query(*a); };
          }};
}

Command stop_workers_command() {
  return {"stop-workers",
          "Ask workers to stop (all, or those matching --spec/--queues/--workers): each drains, "
          "its running tasks finish and commit",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<WorkersArgs>();
            add_filters(sub, *a);
            return [a] { return stop(*a); };
          }};
}

}  // namespace merlin::cli
