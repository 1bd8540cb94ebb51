// A batch job's `merlin run-workers ... --here` line is rendered by the run layer
// (run_workers_argv) and read by the CLI's parser: the two agree on every option.
#include <gtest/gtest.h>

#include "merlin/cli/command.h"
#include "merlin/run/run_workers_options.h"

namespace merlin::cli {
namespace {

using run::RunWorkersOptions;

RunWorkersOptions round_trip(const RunWorkersOptions& o) {
  auto back = parse_run_workers_line(run::run_workers_argv(o));
  EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().message);
  return back.ok() ? *back : RunWorkersOptions{};
}

TEST(RunWorkersLine, DefaultOptionsReadBackUnchanged) {
  RunWorkersOptions o;
  o.spec = "spec.yaml";
  EXPECT_EQ(round_trip(o), o);
}

TEST(RunWorkersLine, ABatchJobsOptionsReadBackUnchanged) {
  RunWorkersOptions o;
  o.spec = "/abs/spec.yaml";
  o.workers = {"sim"};
  o.concurrency = 8;
  o.here = o.exit_when_done = true;
  o.vars = {"N=4", "NAME=two words"};
  o.steps = {"run", "post"};
  o.lease_seconds = 90;
  o.dead_after_seconds = 0;
  o.drain_margin = 120;
  o.max_deliveries = 0;
  o.kill_wait = 2.5;
  o.log_level = "error";
  EXPECT_EQ(round_trip(o), o);
}

TEST(RunWorkersLine, EveryOtherOptionReadsBackUnchanged) {
  RunWorkersOptions o;
  o.spec = "spec.yaml";
  o.workers = {"a", "b"};
  o.worker_args = "--concurrency 2 -O fair";
  o.echo = true;
  o.disable_logs = true;
  o.array = 16;
  o.lease_seconds = 0.5;
  o.log_level = "debug";
  EXPECT_EQ(round_trip(o), o);
}

TEST(RunWorkersLine, AWrongOptionIsBadInput) {
  auto r = parse_run_workers_line({"run-workers", "spec.yaml", "--no-such-flag"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
}

}  // namespace
}  // namespace merlin::cli
