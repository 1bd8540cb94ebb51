// merlin database's view (merlin/run/database_view.h): runs grouped into studies, logical
// workers merged across runs, physical workers matched by name and queue, and the selection's
// errors and misses.
#include "merlin/run/database_view.h"

#include <gtest/gtest.h>

namespace merlin::run {
namespace {

DbView two_runs_one_worker() {
  DbView v;
  v.runs.push_back({"hello_1", "/w/hello_1", "hello", {"merlin"}, 3, 3, 0, true});
  v.runs.push_back({"hello_2", "/w/hello_2", "hello", {"merlin"}, 1, 3, 1, true});
  v.runs.push_back({"other_1", "/w/other_1", "other", {"q1", "q2"}, 0, 0, 0, false});
  add_logical_worker(v, "hello_1", "demo_worker", {"merlin"});
  add_logical_worker(v, "hello_2", "demo_worker", {"merlin", "merlin"});
  add_logical_worker(v, "other_1", "w", {"q2", "q1"});
  WorkerRecord p;
  p.id = "node1.42.demo_worker";
  p.name = "demo_worker";
  p.host = "node1";
  p.pid = 42;
  p.spec_name = "hello";
  p.queues = {"merlin"};
  p.slots = 2;
  p.seen_ms = 10'000;
  v.physical.push_back(p);
  return v;
}

TEST(DatabaseView, RunsOfOneNameAreOneStudyAndEqualWorkersMerge) {
  DbView v = two_runs_one_worker();
  EXPECT_EQ(v.studies(), (std::vector<std::string>{"hello", "other"}));
  ASSERT_EQ(v.logical.size(), 2u);
  EXPECT_EQ(v.logical[0].id(), "demo_worker [merlin]");
  EXPECT_EQ(v.logical[0].runs, (std::vector<std::string>{"hello_1", "hello_2"}));
  EXPECT_EQ(v.logical[1].id(), "w [q1,q2]");
  EXPECT_EQ(v.instances(v.logical[0]).size(), 1u);
  EXPECT_TRUE(v.instances(v.logical[1]).empty());
}

TEST(DatabaseView, InfoCountsEachKind) {
  const std::string text = render_info(two_runs_one_worker(), "redis", "7.0.15", "redis://h:1/0");
  EXPECT_NE(text.find("- Database Type: redis\n- Database Version: 7.0.15\n"), std::string::npos);
  EXPECT_NE(text.find("Studies:\n- Total: 2\n"), std::string::npos);
  EXPECT_NE(text.find("Runs:\n- Total: 3\n"), std::string::npos);
  EXPECT_NE(text.find("Logical Workers:\n- Total: 2\n"), std::string::npos);
  EXPECT_NE(text.find("Physical Workers:\n- Total: 1\n"), std::string::npos);
}

TEST(DatabaseView, ARunShowsItsServingWorkersAndWhetherItIsComplete) {
  DbView v = two_runs_one_worker();
  const std::string done = render_run(v, v.runs[0]);
  EXPECT_NE(done.find("Run with ID hello_1\n"), std::string::npos);
  EXPECT_NE(done.find("Workers: ['node1.42.demo_worker']\n"), std::string::npos);
  EXPECT_NE(done.find("Run Complete: True\n"), std::string::npos);
  const std::string half = render_run(v, v.runs[1]);
  EXPECT_NE(half.find("Run Complete: False\nProgress: 1/3 tasks done, 1 failed\n"),
            std::string::npos);
  const std::string unknown = render_run(v, v.runs[2]);
  EXPECT_NE(unknown.find("Workers: []\n"), std::string::npos);
  EXPECT_EQ(unknown.find("Progress:"), std::string::npos);
}

TEST(DatabaseView, SelectionFindsByIdOrWorkspaceAndReportsMisses) {
  DbView v = two_runs_one_worker();
  auto r = select_entries(v, "run", {"/w/hello_2", "nope"}, 20'000);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->text.find("Run with ID hello_2"), std::string::npos);
  EXPECT_EQ(r->missing, (std::vector<std::string>{"nope"}));
  auto p = select_entries(v, "physical-worker", {"demo_worker"}, 20'000);
  ASSERT_TRUE(p.ok());
  EXPECT_NE(p->text.find("Logical Worker ID: demo_worker [merlin]\n"), std::string::npos);
  EXPECT_NE(p->text.find("Last Heartbeat: 10 s ago\n"), std::string::npos);
  auto all = select_entries(v, "everything", {}, 0);
  ASSERT_TRUE(all.ok());
  EXPECT_NE(all->text.find("Study with ID other"), std::string::npos);
  EXPECT_NE(all->text.find("Physical Worker with ID node1.42.demo_worker"), std::string::npos);
}

TEST(DatabaseView, SelectionRefusesAnUnknownKindAndMisplacedIds) {
  DbView v;
  auto bad = select_entries(v, "all-things", {}, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  auto ids = select_entries(v, "all-runs", {"x"}, 0);
  ASSERT_FALSE(ids.ok());
  EXPECT_NE(ids.error().message.find("`database get run ID...`"), std::string::npos);
  auto none = select_entries(v, "logical-worker", {}, 0);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("`database get all-logical-workers`"), std::string::npos);
}

}  // namespace
}  // namespace merlin::run
