#include "merlin/run/run_workers_options.h"

#include <algorithm>
#include <cstdio>

namespace merlin::run {
namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::chrono::milliseconds kill_wait_of(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000 + 0.5));
}

std::chrono::milliseconds RunWorkersOptions::lease() const {
  return std::chrono::milliseconds(static_cast<long long>(lease_seconds * 1000));
}

std::chrono::milliseconds RunWorkersOptions::dead_after() const {
  return std::chrono::milliseconds(static_cast<long long>(dead_after_seconds * 1000));
}

std::uint32_t RunWorkersOptions::delivery_limit() const {
  return static_cast<std::uint32_t>(std::max(0, max_deliveries));
}

Result<void> check_options(const RunWorkersOptions& o) {
  if (o.lease_seconds < 0.1) return Error::bad_input("--lease must be at least 0.1 seconds");
  // Workers beat about once a second; a few missed beats (a busy host, a slow reply) must not
  // pass for death.
  if (o.dead_after_seconds != 0 && o.dead_after_seconds < 3)
    return Error::bad_input(
        "--dead-after must be at least 3 seconds (workers beat every second), or 0 for leases "
        "only");
  if (o.drain_margin < 0) return Error::bad_input("--drain-margin must be 0 or more seconds");
  return {};
}

std::vector<std::string> run_workers_argv(const RunWorkersOptions& o) {
  const RunWorkersOptions d;  // the defaults
  std::vector<std::string> w = {"run-workers", o.spec};
  for (const auto& n : o.workers) w.insert(w.end(), {"--worker", n});
  if (o.here) w.push_back("--here");
  if (o.exit_when_done) w.push_back("--exit-when-done");
  if (o.concurrency) w.insert(w.end(), {"--concurrency", std::to_string(*o.concurrency)});
  for (const auto& v : o.vars) w.insert(w.end(), {"--vars", v});
  for (const auto& s : o.steps) w.insert(w.end(), {"--steps", s});
  w.insert(w.end(), {"--lease", number(o.lease_seconds)});
  if (o.dead_after_seconds != d.dead_after_seconds)
    w.insert(w.end(), {"--dead-after", number(o.dead_after_seconds)});
  w.insert(w.end(), {"--drain-margin", number(o.drain_margin)});
  if (o.max_deliveries != d.max_deliveries)
    w.insert(w.end(), {"--max-deliveries", std::to_string(o.max_deliveries)});
  if (o.kill_wait != d.kill_wait) w.insert(w.end(), {"--kill-wait", number(o.kill_wait)});
  if (o.log_level != d.log_level) w.insert(w.end(), {"--log-level", o.log_level});
  // One word: a value that starts with a dash is not taken for an option.
  if (!o.worker_args.empty()) w.push_back("--worker-args=" + o.worker_args);
  if (o.echo) w.push_back("--echo");
  if (o.disable_logs) w.push_back("--disable-logs");
  if (o.array != d.array) w.insert(w.end(), {"--array", std::to_string(o.array)});
  return w;
}

}  // namespace merlin::run
