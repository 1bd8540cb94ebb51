// detailed-status's per-task decisions: journals' records against the broker's done bits.
#include "merlin/run/task_details.h"

#include <gtest/gtest.h>

namespace merlin::cli {
using namespace merlin::run;
namespace {

JournalRecord start(std::uint32_t inst, SampleId x, std::uint32_t at) {
  JournalRecord r{InstanceId{inst}, x};
  r.started = true;
  r.at = at;
  return r;
}

JournalRecord end(std::uint32_t inst, SampleId x, Outcome o, std::uint32_t at, float secs = 1) {
  JournalRecord r{InstanceId{inst}, x, o, secs};
  r.at = at;
  return r;
}

// Bits as Redis stores them: sample s is bit 0x80 >> s%8 of byte s/8.
SampleBits bits(std::initializer_list<SampleId> done, std::initializer_list<SampleId> failed) {
  SampleBits b;
  auto set = [](std::string& s, SampleId x) {
    if (s.size() <= x / 8) s.resize(x / 8 + 1, '\0');
    s[x / 8] = static_cast<char>(static_cast<unsigned char>(s[x / 8]) | (0x80u >> (x % 8)));
  };
  for (auto x : done) set(b.done, x);
  for (auto x : failed) set(b.failed, x);
  return b;
}

TEST(TaskLedger, LocalRunTheLastRecordTellsAndRestartsAreCounted) {
  TaskLedger l({4}, {true});
  auto w = l.add_worker("");
  l.add(start(0, 0, 100), w);
  l.add(end(0, 0, Outcome::kSuccess, 101, 0.5f), w);
  l.add(start(0, 1, 100), w);
  l.add(end(0, 1, Outcome::kSoftFail, 101), w);
  l.add(start(0, 1, 200), w);  // the restart runs it again
  l.add(end(0, 1, Outcome::kSuccess, 201), w);
  l.add(start(0, 2, 100), w);  // running now

  auto d0 = l.detail(InstanceId{0}, 0, nullptr, true);
  EXPECT_EQ(d0.state, TaskState::kFinished);
  EXPECT_EQ(d0.outcome, Outcome::kSuccess);
  EXPECT_FLOAT_EQ(d0.seconds, 0.5f);
  EXPECT_EQ(d0.starts, 1u);
  auto d1 = l.detail(InstanceId{0}, 1, nullptr, true);
  EXPECT_EQ(d1.state, TaskState::kFinished);
  EXPECT_EQ(d1.starts, 2u);
  EXPECT_EQ(d1.ended_at, 201u);
  EXPECT_EQ(l.detail(InstanceId{0}, 2, nullptr, true).state, TaskState::kRunning);
  // No process runs the study any more: the interrupted task waits for a restart.
  EXPECT_EQ(l.detail(InstanceId{0}, 2, nullptr, false).state, TaskState::kInitialized);
  EXPECT_EQ(l.detail(InstanceId{0}, 3, nullptr, true).state, TaskState::kInitialized);
}

TEST(TaskLedger, SameSecondStartAfterAFailureIsRunningByJournalOrder) {
  TaskLedger l({1}, {true});
  l.add(start(0, 0, 50), 0);
  l.add(end(0, 0, Outcome::kSoftFail, 50), 0);
  l.add(start(0, 0, 50), 0);
  EXPECT_EQ(l.detail(InstanceId{0}, 0, nullptr, true).state, TaskState::kRunning);
}

TEST(TaskLedger, TheBrokersBitsAreTheTruthAndJournalsTheDetail) {
  TaskLedger l({6}, {true});
  auto a = l.add_worker("sim_a"), b = l.add_worker("sim_b");
  l.add(start(0, 0, 10), a);
  l.add(end(0, 0, Outcome::kHardFail, 12), a);
  l.add(start(0, 1, 10), b);
  l.add(end(0, 1, Outcome::kSoftFail, 11), b);  // then `merlin restart` cleared its bits
  l.add(start(0, 2, 10), a);                    // worker a died on it; b took it over later
  l.add(start(0, 2, 40), b);
  l.add(end(0, 2, Outcome::kSuccess, 41), b);
  l.add(start(0, 4, 10), a);
  l.add(end(0, 4, Outcome::kStopped, 11), a);
  // Sample 3: committed by a worker that died before its journal saw it.
  auto bb = bits({0, 2, 3, 4}, {0});

  auto d0 = l.detail(InstanceId{0}, 0, &bb, true);
  EXPECT_EQ(d0.state, TaskState::kFailed);
  EXPECT_EQ(d0.outcome, Outcome::kHardFail);
  EXPECT_EQ(d0.worker, "sim_a");
  EXPECT_EQ(l.detail(InstanceId{0}, 1, &bb, true).state, TaskState::kInitialized);
  auto d2 = l.detail(InstanceId{0}, 2, &bb, true);
  EXPECT_EQ(d2.state, TaskState::kFinished);
  EXPECT_EQ(d2.worker, "sim_b");
  EXPECT_EQ(d2.starts, 2u);
  auto d3 = l.detail(InstanceId{0}, 3, &bb, true);
  EXPECT_EQ(d3.state, TaskState::kFinished);
  EXPECT_EQ(d3.worker, "");
  EXPECT_EQ(l.detail(InstanceId{0}, 4, &bb, true).state, TaskState::kCancelled);
  EXPECT_EQ(l.detail(InstanceId{0}, 5, &bb, true).state, TaskState::kInitialized);
}

TEST(TaskLedger, OnlyWantedInstancesKeepTasks) {
  TaskLedger l({2, 2}, {false, true});
  l.add(end(0, 0, Outcome::kSuccess, 5), 0);
  l.add(end(1, 0, Outcome::kSuccess, 5), 0);
  l.add(end(1, 9, Outcome::kSuccess, 5), 0);  // beyond the instance: ignored, no crash
  EXPECT_EQ(l.detail(InstanceId{0}, 0, nullptr, true).state, TaskState::kInitialized);
  EXPECT_EQ(l.detail(InstanceId{1}, 0, nullptr, true).state, TaskState::kFinished);
}

TEST(TaskFilter, StatusReturnCodeAndWorkerMatchAnyAsInMerlin) {
  TaskDetail failed;
  failed.state = TaskState::kFailed;
  failed.outcome = Outcome::kSoftFail;
  failed.worker = "w1";
  TaskDetail ok;
  ok.state = TaskState::kFinished;
  ok.outcome = Outcome::kSuccess;
  ok.worker = "w2";

  TaskFilter none;
  EXPECT_TRUE(none.keeps(failed));
  TaskFilter f;
  f.statuses = {"FAILED"};
  f.workers = {"w2"};
  EXPECT_TRUE(f.keeps(failed));
  EXPECT_TRUE(f.keeps(ok));
  TaskFilter code;
  code.return_codes = {"SOFT_FAIL"};
  EXPECT_TRUE(code.keeps(failed));
  EXPECT_FALSE(code.keeps(ok));
}

TEST(TaskFilter, NamesAreCheckedInAnyCaseWithOrWithoutMerlinPrefix) {
  auto s = parse_statuses({"failed", "Running"});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (std::set<std::string>{"FAILED", "RUNNING"}));
  EXPECT_EQ(parse_statuses({"done"}).error().code, ErrorCode::kBadInput);
  auto c = parse_return_codes({"merlin_soft_fail", "HARD_FAIL"});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, (std::set<std::string>{"SOFT_FAIL", "HARD_FAIL"}));
  auto bad = parse_return_codes({"OK"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("SUCCESS, SOFT_FAIL"), std::string::npos);
}

TEST(TaskDetails, DurationsReadAsPeopleWriteThem) {
  EXPECT_EQ(duration_text(0), "");
  EXPECT_EQ(duration_text(0.25), "0.250s");
  EXPECT_EQ(duration_text(42.5), "42.5s");
  EXPECT_EQ(duration_text(125), "2m05s");
  EXPECT_EQ(duration_text(3723), "1h02m03s");
  EXPECT_EQ(duration_text(90061), "1d01h01m01s");
}

}  // namespace
}  // namespace merlin::cli
