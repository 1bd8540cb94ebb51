// Which workers `merlin run-workers` runs, decided from the spec and its options alone.
#include "merlin/run/worker_planning.h"

#include <gtest/gtest.h>

#include "merlin/core/spec/spec_loader.h"

namespace merlin::run {
namespace {

constexpr const char* kSpec = R"(
description:
  name: plan
  description: two workers
study:
  - name: sim
    description: s
    run:
      cmd: echo sim
      task_queue: simq
  - name: post
    description: p
    run:
      cmd: echo post
      depends: [sim]
      task_queue: postq
merlin:
  resources:
    workers:
      simworker:
        args: -l INFO --concurrency 3
        steps: [sim]
        machines: [nodeA]
      postworker:
        steps: [post]
)";

spec::StudySpec spec() {
  auto s = spec::parse_spec(kSpec, "plan.yaml");
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? s->spec : spec::StudySpec{};
}

TEST(WorkerPlanning, EachWorkerGetsTheQueuesOfItsStepsAndItsCelerySlots) {
  auto plans = plan_workers(spec(), RunWorkersOptions{}, "h", 7, 2);
  ASSERT_TRUE(plans.ok()) << plans.error().message;
  ASSERT_EQ(plans->size(), 2u);
  EXPECT_EQ((*plans)[0].name, "simworker");
  EXPECT_EQ((*plans)[0].queues, std::vector<std::string>{"simq"});
  EXPECT_EQ((*plans)[0].slots, 3);  // its args' --concurrency
  EXPECT_EQ((*plans)[0].id, "h.7.simworker");
  EXPECT_EQ((*plans)[1].slots, 2);  // no args: the cores
}

TEST(WorkerPlanning, ConcurrencyOptionWinsOverWorkerArgsAndTheSpec) {
  RunWorkersOptions o;
  o.worker_args = "--concurrency 5";
  EXPECT_EQ((*plan_workers(spec(), o, "h", 1, 2))[0].slots, 5);
  o.concurrency = 6;
  EXPECT_EQ((*plan_workers(spec(), o, "h", 1, 2))[0].slots, 6);
}

TEST(WorkerPlanning, StepsAndWorkerChooseWhoRuns) {
  RunWorkersOptions o;
  o.steps = {"post"};
  auto plans = plan_workers(spec(), o, "h", 1, 2);
  ASSERT_TRUE(plans.ok());
  ASSERT_EQ(plans->size(), 1u);
  EXPECT_EQ((*plans)[0].name, "postworker");
  o.steps.clear();
  o.workers = {"simworker"};
  EXPECT_EQ(plan_workers(spec(), o, "h", 1, 2)->size(), 1u);
}

TEST(WorkerPlanning, NamesNotInTheSpecAreBadInput) {
  RunWorkersOptions o;
  o.steps = {"nope"};
  EXPECT_EQ(plan_workers(spec(), o, "h", 1, 2).error().code, ErrorCode::kBadInput);
  o.steps.clear();
  o.workers = {"nope"};
  EXPECT_EQ(plan_workers(spec(), o, "h", 1, 2).error().code, ErrorCode::kBadInput);
  o.workers.clear();
  o.concurrency = 0;
  EXPECT_EQ(plan_workers(spec(), o, "h", 1, 2).error().code, ErrorCode::kBadInput);
}

TEST(WorkerPlanning, AWorkerNamingMachinesStartsOnlyOnAHostContainingOne) {
  auto plans = *plan_workers(spec(), RunWorkersOptions{}, "h", 1, 2);
  EXPECT_EQ(for_this_machine(spec(), plans, "nodeA12.cluster").size(), 2u);
  auto elsewhere = for_this_machine(spec(), plans, "nodeB3");
  ASSERT_EQ(elsewhere.size(), 1u);
  EXPECT_EQ(elsewhere[0].name, "postworker");
}

}  // namespace
}  // namespace merlin::run
