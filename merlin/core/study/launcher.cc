#include "merlin/core/study/launcher.h"

#include <cstdlib>

#include "merlin/core/batch/scheduler.h"

namespace merlin {
namespace {

const batch::Scheduler& scheduler_of(const LaunchResources& r) {
  const auto* s = batch::find_scheduler(r.batch_type);
  return s ? *s : *batch::find_scheduler("local");
}

std::string with_flags(std::string base, const LaunchResources& r) {
  if (!r.extra_flags.empty()) base += " " + r.extra_flags;
  if (!r.rank_env.empty()) base += " " + r.rank_env;
  return base;
}

}  // namespace

std::string render_launcher(const LaunchResources& r) {
  if (r.nodes <= 0 && r.procs <= 0) return {};
  int nodes = r.nodes > 0 ? r.nodes : 1;
  int procs = r.procs > 0 ? r.procs : nodes;
  int cores = r.cores_per_task > 0 ? r.cores_per_task : 1;
  // One process where workers run needs no launcher; a scheduler's step always has one.
  if (!scheduler_of(r).has_jobs() && procs <= 1) return {};
  batch::LaunchCounts c{std::to_string(nodes), std::to_string(procs), std::to_string(cores),
                        std::to_string(r.gpus), std::to_string((procs + nodes - 1) / nodes)};
  return with_flags(scheduler_of(r).step_launcher(r, c), r);
}

std::string render_vlauncher(const LaunchResources& r) {
  batch::LaunchCounts c{"${MERLIN_NODES}", "${MERLIN_PROCS}", "${MERLIN_CORES}", "${MERLIN_GPUS}",
                        "${MERLIN_PROCS}"};
  // Merlin's $(VLAUNCHER) sets the step's `cores per task` to ${MERLIN_CORES}, so every
  // launcher with a cores flag shows it, whether the step has the key or not.
  LaunchResources v = r;
  if (v.cores_per_task <= 0) v.cores_per_task = 1;
  return with_flags(scheduler_of(v).step_launcher(v, c), v);
}

LaunchResources with_override(LaunchResources r, std::string_view bracket) {
  std::string part;
  auto flush = [&] {
    if (part.size() > 1) {
      int v = std::atoi(part.c_str());
      if (part.back() == 'n') r.nodes = v;
      if (part.back() == 'p') r.procs = v;
    }
    part.clear();
  };
  for (char ch : bracket) {
    if (ch == '[' || ch == ' ') continue;
    if (ch == ',' || ch == ']') {
      flush();
      continue;
    }
    part += ch;
  }
  flush();
  return r;
}

}  // namespace merlin
