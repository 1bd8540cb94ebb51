#include <CLI/CLI.hpp>

#include <cstdio>

#include "merlin/cli/broker_config.h"
#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/cli/dist_study.h"
#include "merlin/cli/table.h"

namespace merlin::cli {
namespace {

struct QueueInfoArgs {
  std::string spec;
  std::vector<std::string> vars;
  std::string format = "table";
  BrokerFlags broker;
};

int queue_info(const QueueInfoArgs& a) {
  auto fmt = parse_format(a.format);
  if (!fmt) return report_error(fmt.error());
  auto vars = parse_vars(a.vars);
  if (!vars) return report_error(vars.error());
  auto loc = resolve_broker(a.broker);
  if (!loc) return report_error(loc.error());
  RedisStudies studies(redis_settings(*loc));
  auto list = a.spec.empty() ? studies.list() : studies_of_spec(a.spec, *vars, *loc);
  if (!list) return report_error(list.error());
  std::vector<TableRow> rows;
  for (const auto& s : *list) {
    auto stats = studies.queue_stats(s.key);
    if (!stats) return report_error(stats.error());
    for (const auto& q : *stats)
      rows.push_back({s.key, q.queue, std::to_string(q.queued), std::to_string(q.reserved),
                      std::to_string(q.delayed), std::to_string(q.consumers)});
  }
  std::fputs(
      format_table({"STUDY", "QUEUE", "QUEUED", "RESERVED", "DELAYED", "CONSUMERS"}, rows, *fmt)
          .c_str(),
      stdout);
  return kExitOk;
}

}  // namespace

Command queue_info_command() {
  return {"queue-info",
          "Messages per queue of the queued studies: waiting, reserved by workers, delayed "
          "(retries), and the consumers that read it",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<QueueInfoArgs>();
            sub.add_option("spec", a->spec, "Only the studies queued from this spec");
            sub.add_option("--vars", a->vars, "KEY=VALUE overrides used at `merlin run`");
            sub.add_option("--format", a->format, "table, json or csv")->capture_default_str();
            add_broker_flags(sub, a->broker);
            return [a] {
              reclaim_spec(a->vars, a->spec);
              return queue_info(*a);
            };
          }};
}

}  // namespace merlin::cli
