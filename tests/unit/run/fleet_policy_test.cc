// The worker fleet's decisions, apart from its loop: what a hard fail leaves open, which study
// is worth serving, the work left for us, each worker's options, what the reports say.
#include "merlin/run/fleet_policy.h"

#include <gtest/gtest.h>

namespace merlin::run {
namespace {

const std::vector<WorkerPlan> kPlans = {WorkerPlan{"sim", {"simq", "postq"}, 4, "h.1.sim"},
                                        WorkerPlan{"agg", {"aggq"}, 1, "h.1.agg"}};

TEST(FleetPolicy, AHardFailClosesOnlyItsQueue) {
  EXPECT_EQ(open_queues({"a", "b", "c"}, {"b"}), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(open_queues({"a"}, {}), std::vector<std::string>{"a"});
}

TEST(FleetPolicy, AStudyIsServableWhileSomeWorkerHasAnOpenQueue) {
  EXPECT_TRUE(servable(kPlans, {}));
  EXPECT_TRUE(servable(kPlans, {"simq", "postq"}));
  EXPECT_FALSE(servable(kPlans, {"simq", "postq", "aggq"}));
}

TEST(FleetPolicy, WorkOnStoppedQueuesIsNobodysHere) {
  const std::vector<QueueStats> stats = {{"simq", 3, 2, 1, 0}, {"aggq", 10, 0, 0, 0}};
  EXPECT_EQ(work_outside(stats, {}), 16u);
  EXPECT_EQ(work_outside(stats, {"aggq"}), 6u);
}

TEST(FleetPolicy, EachWorkerServesItsOpenQueuesAndWatchesTheStudysOpenQueues) {
  RunWorkersOptions o;
  o.lease_seconds = 30;
  o.max_deliveries = 3;
  auto wo = worker_options_for(kPlans[0], {"simq", "postq", "aggq"}, {"postq"}, o);
  ASSERT_TRUE(wo);
  EXPECT_EQ(wo->queues, std::vector<std::string>{"simq"});
  EXPECT_EQ(wo->idle_queues, (std::vector<std::string>{"simq", "aggq"}));
  EXPECT_EQ(wo->slots, 4);
  EXPECT_EQ(wo->lease_renewal, std::chrono::milliseconds(10'000)) << "a third of the lease";
  EXPECT_EQ(wo->max_deliveries, 3u);
  EXPECT_EQ(wo->scratch_retry, kDefaultScratchRetry);
  EXPECT_TRUE(wo->commit_behind) << "a distributed worker does not wait for its commits";
  EXPECT_EQ(wo->take_ahead, 16) << "four short tasks per slot";
}

TEST(FleetPolicy, AWideWorkerTakesAtMost64Ahead) {
  const WorkerPlan wide{"sim", {"simq"}, 256, "h.1.sim"};
  auto wo = worker_options_for(wide, {"simq"}, {}, RunWorkersOptions{});
  ASSERT_TRUE(wo);
  EXPECT_EQ(wo->take_ahead, 64);
}

TEST(FleetPolicy, AWorkerWhoseQueuesAllStoppedDoesNotStart) {
  EXPECT_FALSE(worker_options_for(kPlans[1], {"aggq"}, {"aggq"}, RunWorkersOptions{}));
}

TEST(FleetPolicy, TheReportsTellWorkDoneStoppedQueuesAndAStepsStop) {
  WorkerReport idle;
  WorkerReport split;
  split.splits = 2;
  split.stopped_queues = {"simq"};
  EXPECT_FALSE(tally({idle}).worked);
  auto t = tally({idle, split});
  EXPECT_TRUE(t.worked);
  EXPECT_EQ(t.stopped_queues, std::set<std::string>{"simq"});
  EXPECT_FALSE(t.stopped_by_step);
  WorkerReport stop;
  stop.stopped_by_step = true;
  EXPECT_TRUE(tally({idle, stop}).stopped_by_step);
}

}  // namespace
}  // namespace merlin::run
