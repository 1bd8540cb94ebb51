// `merlin run-workers`' options: the numbers checked before any worker starts, and the command
// line a batch job runs (the CLI's parser reads it back: tests/unit/cli/run_workers_line_test.cc).
#include "merlin/run/run_workers_options.h"

#include <gtest/gtest.h>

namespace merlin::run {
namespace {

TEST(RunWorkersOptions, DefaultsAreTheBrokersLeaseAndLiveness) {
  RunWorkersOptions o;
  EXPECT_EQ(o.lease(), kDefaultLease);
  EXPECT_EQ(o.dead_after(), kDefaultDeadAfter);
  EXPECT_EQ(o.kill_wait_ms(), kDefaultKillWait);
  EXPECT_EQ(o.delivery_limit(), kDefaultMaxDeliveries);
  EXPECT_TRUE(check_options(o).ok());
}

TEST(RunWorkersOptions, NegativeMaxDeliveriesMeansNoLimit) {
  RunWorkersOptions o;
  o.max_deliveries = -5;
  EXPECT_EQ(o.delivery_limit(), 0u);
}

TEST(RunWorkersOptions, RefusesLeaseDeadAfterAndDrainMarginOutOfRange) {
  RunWorkersOptions o;
  o.lease_seconds = 0.05;
  EXPECT_EQ(check_options(o).error().code, ErrorCode::kBadInput);
  o = {};
  o.dead_after_seconds = 2;
  EXPECT_EQ(check_options(o).error().code, ErrorCode::kBadInput);
  o.dead_after_seconds = 0;  // leases only
  EXPECT_TRUE(check_options(o).ok());
  o = {};
  o.drain_margin = -1;
  EXPECT_EQ(check_options(o).error().code, ErrorCode::kBadInput);
}

TEST(RunWorkersOptions, ArgvOfABatchJobLeavesDefaultsOut) {
  RunWorkersOptions o;
  o.spec = "/s/spec.yaml";
  o.workers = {"sim"};
  o.here = o.exit_when_done = true;
  o.concurrency = 4;
  o.vars = {"N=2"};
  const std::vector<std::string> want = {"run-workers",    "/s/spec.yaml",
                                         "--worker",       "sim",
                                         "--here",         "--exit-when-done",
                                         "--concurrency",  "4",
                                         "--vars",         "N=2",
                                         "--lease",        "60",
                                         "--drain-margin", "60"};
  EXPECT_EQ(run_workers_argv(o), want);
}

TEST(RunWorkersOptions, ArgvCarriesEveryOptionThatDiffersFromItsDefault) {
  RunWorkersOptions o;
  o.spec = "spec.yaml";
  o.dead_after_seconds = 4.5;
  o.max_deliveries = 3;
  o.kill_wait = 2;
  o.log_level = "error";
  o.worker_args = "--concurrency 2";
  const auto w = run_workers_argv(o);
  const std::string line = [&] {
    std::string s;
    for (const auto& x : w) s += x + " ";
    return s;
  }();
  EXPECT_NE(line.find("--dead-after 4.5 "), std::string::npos) << line;
  EXPECT_NE(line.find("--max-deliveries 3 "), std::string::npos) << line;
  EXPECT_NE(line.find("--kill-wait 2 "), std::string::npos) << line;
  EXPECT_NE(line.find("--log-level error "), std::string::npos) << line;
  EXPECT_NE(line.find("--worker-args=--concurrency 2 "), std::string::npos) << line;
}

}  // namespace
}  // namespace merlin::run
