// `merlin monitor`'s decisions on a fake clock: finish when nothing is pending, wait while a
// live worker serves the work, give up once work has waited unserved past the stall timeout.
#include "merlin/run/study_monitor.h"

#include <gtest/gtest.h>

namespace merlin::run {
namespace {

using std::chrono::seconds;
using TimePoint = std::chrono::steady_clock::time_point;

MonitorPoll poll(std::uint64_t pending, int alive) {
  MonitorPoll p;
  p.pending = pending;
  p.alive = alive;
  return p;
}

TEST(MonitorDecide, NothingPendingEndsTheWatch) {
  MonitorState s;
  EXPECT_EQ(decide(s, poll(0, 0), TimePoint{}, 300), MonitorStep::kNoWorkLeft);
}

TEST(MonitorDecide, WorkServedByALiveWorkerWaitsForever) {
  MonitorState s;
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(decide(s, poll(5, 1), TimePoint{} + seconds(i * 60), 300), MonitorStep::kWait);
  EXPECT_FALSE(s.unserved_since);
}

TEST(MonitorDecide, UnservedWorkStallsOnlyAfterTheTimeoutFromTheFirstUnservedPoll) {
  MonitorState s;
  const TimePoint t0 = TimePoint{} + seconds(1000);
  EXPECT_EQ(decide(s, poll(5, 0), t0, 300), MonitorStep::kWait);
  EXPECT_EQ(decide(s, poll(5, 0), t0 + seconds(300), 300), MonitorStep::kWait);
  EXPECT_EQ(decide(s, poll(5, 0), t0 + seconds(301), 300), MonitorStep::kStalled);
}

TEST(MonitorDecide, ALiveWorkerRestartsTheStallClock) {
  MonitorState s;
  const TimePoint t0 = TimePoint{} + seconds(1000);
  decide(s, poll(5, 0), t0, 300);
  decide(s, poll(5, 1), t0 + seconds(200), 300);
  EXPECT_EQ(decide(s, poll(5, 0), t0 + seconds(400), 300), MonitorStep::kWait);
  EXPECT_EQ(decide(s, poll(5, 0), t0 + seconds(650), 300), MonitorStep::kWait);
  EXPECT_EQ(decide(s, poll(5, 0), t0 + seconds(701), 300), MonitorStep::kStalled);
}

WorkerRecord seen(const std::string& spec, std::int64_t seen_ms) {
  WorkerRecord w;
  w.spec_name = spec;
  w.seen_ms = seen_ms;
  return w;
}

TEST(MonitorLiveWorkers, CountsThisSpecsWorkersWithinTheDeadAfterTime) {
  const std::int64_t now = 1'000'000;
  std::vector<WorkerRecord> ws = {seen("a", now - 1'000), seen("a", now - 10'000),
                                  seen("a", now - 10'001), seen("b", now)};
  EXPECT_EQ(live_workers(ws, "a", now, kDefaultDeadAfter), 2);
  EXPECT_EQ(live_workers(ws, "a", now, std::chrono::milliseconds(500)), 0);
  EXPECT_EQ(live_workers(ws, "b", now, kDefaultDeadAfter), 1);
}

TEST(WorkerLiveness, AliveUpToTheDeadAfterTimeAndDeadPastIt) {
  EXPECT_TRUE(is_alive(0, 10'000));
  EXPECT_FALSE(is_alive(0, 10'001));
  EXPECT_TRUE(is_alive(5'000, 5'000, std::chrono::milliseconds(0)));
  EXPECT_TRUE(is_alive(6'000, 5'000)) << "a clock a little behind the beat is not death";
}

TEST(LeaseRenewal, IsAThirdOfTheLeaseAndNeverZero) {
  EXPECT_EQ(lease_renewal_for(kDefaultLease), std::chrono::milliseconds(20'000));
  EXPECT_EQ(lease_renewal_for(std::chrono::milliseconds(2)), std::chrono::milliseconds(1));
}

}  // namespace
}  // namespace merlin::run
