#include "merlin/run/worker_planning.h"

#include <algorithm>
#include <optional>
#include <set>

#include "merlin/run/celery_args.h"
#include "merlin/run/slots.h"
#include "merlin/core/util/log.h"

namespace merlin::run {
namespace {

std::string joined(const std::vector<std::string>& words, const char* sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

}  // namespace

Result<std::vector<WorkerPlan>> plan_workers(const spec::StudySpec& spec,
                                             const RunWorkersOptions& o, const std::string& host,
                                             int pid, int cores) {
  std::set<std::string> want_workers(o.workers.begin(), o.workers.end());
  std::set<std::string> want_steps(o.steps.begin(), o.steps.end());
  for (const auto& n : want_steps)
    if (!spec.find_step(n))
      return Error::bad_input("--steps: no step named '" + n + "' in the spec");
  for (const auto& n : want_workers) {
    bool known = std::any_of(spec.workers.begin(), spec.workers.end(),
                             [&](const spec::WorkerSpec& w) { return w.name == n; });
    if (!known) return Error::bad_input("--worker: no worker named '" + n + "' in the spec");
  }
  std::optional<int> concurrency;
  if (o.concurrency) {
    auto c = check_slots(*o.concurrency, "--concurrency");
    if (!c) return c.error();
    concurrency = *c;
  }
  auto extra = parse_celery_args(o.worker_args);
  if (!extra) return Error::bad_input("--worker-args: " + extra.error().message);
  if (!extra->ignored.empty())
    log::warn("Celery flags in --worker-args are ignored: {}", joined(extra->ignored, " "));
  std::vector<WorkerPlan> out;
  for (const auto& w : spec.workers) {
    if (!want_workers.empty() && !want_workers.count(w.name)) continue;
    WorkerPlan p;
    p.name = w.name;
    for (const auto& step : w.steps) {
      if (!want_steps.empty() && !want_steps.count(step)) continue;
      const auto* s = spec.find_step(step);
      if (s && std::find(p.queues.begin(), p.queues.end(), s->run.task_queue) == p.queues.end())
        p.queues.push_back(s->run.task_queue);
    }
    if (p.queues.empty()) continue;
    auto celery = parse_celery_args(w.args);
    if (!celery) return Error::bad_input("worker '" + w.name + "': " + celery.error().message);
    if (!celery->ignored.empty())
      log::warn("worker={} Celery flags in args are ignored: {}", w.name,
                joined(celery->ignored, " "));
    p.slots = concurrency          ? *concurrency
              : extra->concurrency ? *extra->concurrency
                                   : celery->concurrency.value_or(cores);
    p.id = host + "." + std::to_string(pid) + "." + w.name;
    out.push_back(std::move(p));
  }
  if (out.empty()) return Error::bad_input("no worker of the spec serves the chosen steps");
  return out;
}

std::vector<WorkerPlan> for_this_machine(const spec::StudySpec& spec, std::vector<WorkerPlan> plans,
                                         const std::string& host) {
  std::erase_if(plans, [&](const WorkerPlan& p) {
    auto w = std::find_if(spec.workers.begin(), spec.workers.end(),
                          [&](const spec::WorkerSpec& s) { return s.name == p.name; });
    if (w == spec.workers.end() || w->machines.empty()) return false;
    bool here = std::any_of(w->machines.begin(), w->machines.end(), [&](const std::string& m) {
      return !m.empty() && host.find(m) != std::string::npos;
    });
    if (!here)
      log::warn("worker={} not started: its machines ({}) do not include this host ({})", p.name,
                joined(w->machines, ","), host);
    return !here;
  });
  return plans;
}

}  // namespace merlin::run
