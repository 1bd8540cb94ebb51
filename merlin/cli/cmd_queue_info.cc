#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <set>

#include "merlin/cli/backends.h"
#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/completion_hints.h"
#include "merlin/core/report/format.h"
#include "merlin/run/broker_tables.h"
#include "merlin/run/dist_study.h"
#include "merlin/core/util/files.h"

namespace merlin::cli {
using namespace merlin::run;
namespace {

struct QueueInfoArgs {
  std::string spec;
  std::vector<std::string> vars;
  std::string format = "table";
  std::vector<std::string> queues;  ///< --specific-queues: only these
  std::vector<std::string> steps;   ///< --steps: only the queues of these steps of the spec
  std::string dump;                 ///< --dump FILE: also written there (.csv or .json)
  BrokerFlags broker;
};

// The queues `--specific-queues` and `--steps` keep; empty: all.
Result<std::set<std::string>> wanted_queues(const QueueInfoArgs& a) {
  std::set<std::string> out(a.queues.begin(), a.queues.end());
  if (a.steps.empty()) return out;
  if (a.spec.empty()) return Error::bad_input("--steps needs the spec (--spec SPEC)");
  auto loaded = load_spec_with_vars(a.spec, a.vars);
  if (!loaded) return loaded.error();
  for (const auto& name : a.steps) {
    const auto* step = loaded->spec.find_step(name);
    if (step == nullptr) return Error::bad_input("--steps: " + a.spec + " has no step '" + name + "'");
    out.insert(step->run.task_queue);
  }
  return out;
}

int queue_info(const QueueInfoArgs& a) {
  auto fmt = report::parse_format(a.format);
  if (!fmt) return report_error(fmt.error());
  auto vars = parse_vars(a.vars);
  if (!vars) return report_error(vars.error());
  auto loc = resolve_broker(a.broker);
  if (!loc) return report_error(loc.error());
  std::optional<report::Format> dump;
  if (!a.dump.empty()) {
    auto d = report::dump_format(a.dump);
    if (!d) return report_error(d.error());
    dump = *d;
  }
  auto wanted = wanted_queues(a);
  if (!wanted) return report_error(wanted.error());
  auto backend = open_backend(*loc);
  if (!backend) return report_error(backend.error());
  StudyRegistry& studies = (*backend)->studies();
  auto list = a.spec.empty() ? studies.list() : studies_of_spec(a.spec, *vars, studies);
  if (!list) return report_error(list.error());
  std::vector<StudyQueues> queues;
  for (const auto& s : *list) {
    auto stats = studies.queue_stats(s.key);
    if (!stats) return report_error(stats.error());
    queues.push_back({s.key, {}});
    for (auto& q : *stats)
      if (wanted->empty() || wanted->count(q.queue) > 0)
        queues.back().queues.push_back(std::move(q));
  }
  const report::Table table = queue_table(queues);
  std::fputs(report::render(table, *fmt).c_str(), stdout);
  if (dump) {
    auto w = files::write(a.dump, report::render(table, *dump), 0644);
    if (!w) return report_error(w.error());
    std::fprintf(stderr, "queue info written to %s\n", a.dump.c_str());
  }
  return kExitOk;
}

}  // namespace

Command queue_info_command() {
  return {"queue-info",
          "Messages per queue of the queued studies: waiting, reserved by workers, delayed "
          "(retries), and the consumers that read it",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<QueueInfoArgs>();
            sub.add_option("spec,--spec", a->spec, "Only the studies queued from this spec");
            sub.add_option("--specific-queues", a->queues, "Only these queues");
            sub.add_option("--steps", a->steps,
                           "Only the queues of these steps of the spec (needs the spec)");
            sub.add_option("--dump", a->dump,
                           "Also write the table to this file, CSV or JSON by its extension");
            sub.add_option("--vars", a->vars, "KEY=VALUE overrides used at `merlin run`");
            offer_values(
                sub.add_option("--format", a->format, "An aligned table, JSON or CSV")
                    ->capture_default_str(),
                {"table", "json", "csv"});
            add_broker_flags(sub, a->broker);
            add_task_server_option(sub);
            return [a] {
              reclaim_spec(a->vars, a->spec);
              return queue_info(*a);
            };
          }};
}

}  // namespace merlin::cli
