// The report tables of status, queue-info and query-workers: typed cells, so JSON has integers,
// nulls and arrays where the old hand-written output had text.
#include "merlin/run/broker_tables.h"

#include <gtest/gtest.h>

#include "merlin/core/report/csv_writer.h"
#include "merlin/core/report/json_writer.h"
#include "merlin/core/report/text_writer.h"
#include "merlin/run/status_report.h"

namespace merlin::run {
namespace {

WorkerRecord worker(std::string name, std::string job, std::string study, std::int64_t seen_ms) {
  WorkerRecord w;
  w.id = "h." + name;
  w.name = std::move(name);
  w.host = "h";
  w.pid = 42;
  w.job = std::move(job);
  w.study = std::move(study);
  w.queues = {"q1", "q2"};
  w.slots = 2;
  w.seen_ms = seen_ms;
  return w;
}

TEST(WorkerTable, NoJobIsNullInJsonAndADashInText) {
  auto t = worker_table({worker("a", "", "", 9'000), worker("b", "77.pbs", "s_1", 20'000)}, 21'500);
  EXPECT_EQ(report::to_json(t),
            "[\n  {\"worker\":\"a\",\"host\":\"h\",\"pid\":42,\"job\":null,\"study\":null,"
            "\"queues\":[\"q1\",\"q2\"],\"slots\":2,\"seen_s_ago\":12,\"state\":\"lost\"},\n"
            "  {\"worker\":\"b\",\"host\":\"h\",\"pid\":42,\"job\":\"77.pbs\",\"study\":\"s_1\","
            "\"queues\":[\"q1\",\"q2\"],\"slots\":2,\"seen_s_ago\":1,\"state\":\"alive\"}\n]\n");
  EXPECT_EQ(report::to_text(t),
            "WORKER  HOST  PID  JOB     STUDY  QUEUES  SLOTS  SEEN_S_AGO  STATE\n"
            "a       h      42  -       -      q1,q2       2          12  lost\n"
            "b       h      42  77.pbs  s_1    q1,q2       2           1  alive\n");
  EXPECT_EQ(report::to_csv(t),
            "WORKER,HOST,PID,JOB,STUDY,QUEUES,SLOTS,SEEN_S_AGO,STATE\n"
            "a,h,42,-,-,\"q1,q2\",2,12,lost\n"
            "b,h,42,77.pbs,s_1,\"q1,q2\",2,1,alive\n");
}

TEST(WorkerTable, AHeartbeatFromTheFutureIsZeroSecondsAgo) {
  auto t = worker_table({worker("a", "", "", 5'000)}, 4'000);
  EXPECT_EQ(std::get<std::int64_t>(t.rows[0][7].value), 0);
}

TEST(QueueTable, CountsAreIntegers) {
  QueueStats q{"sim_q", 3, 1, 0, 2};
  EXPECT_EQ(report::to_json(queue_table({{"s_1", {q}}, {"s_2", {}}})),
            "[\n  {\"study\":\"s_1\",\"queue\":\"sim_q\",\"queued\":3,\"reserved\":1,"
            "\"delayed\":0,\"consumers\":2}\n]\n");
}

TEST(StatusTable, TextKeepsItsColumnsAndJsonItsNames) {
  StepStatus s;
  s.step = "sim";
  s.instances = 1;
  s.total = 10;
  s.done = 4;
  s.failed = 1;
  s.running = 2;
  s.queued = 3;
  s.mean_seconds = 0.25;
  EXPECT_EQ(format_status({s}, StatusFormat::kTable),
            "STEP  INSTANCES       TOTAL        DONE    FAILED   RUNNING      QUEUED    MEAN(s)\n"
            "sim           1          10           4         1         2           3      0.250\n");
  EXPECT_EQ(format_status({s}, StatusFormat::kCsv),
            "step,instances,total,done,failed,running,queued,mean_seconds\n"
            "sim,1,10,4,1,2,3,0.250000\n");
  EXPECT_EQ(format_status({s}, StatusFormat::kJson),
            "[\n  {\"step\":\"sim\",\"instances\":1,\"total\":10,\"done\":4,\"failed\":1,"
            "\"running\":2,\"queued\":3,\"mean_seconds\":0.25}\n]\n");
}

// The old writer padded to fixed widths and let a wide count push the row out of line.
TEST(StatusTable, AWideCountWidensItsColumn) {
  StepStatus s;
  s.step = "sim";
  s.total = 12'345'678'901ull;
  EXPECT_EQ(
      format_status({s}, StatusFormat::kTable),
      "STEP  INSTANCES        TOTAL        DONE    FAILED   RUNNING      QUEUED    MEAN(s)\n"
      "sim           0  12345678901           0         0         0           0      0.000\n");
}

}  // namespace
}  // namespace merlin::run
