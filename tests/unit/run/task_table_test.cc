// detailed-status' table: what has not happened is null in JSON and empty in text and CSV.
#include "merlin/run/task_table.h"

#include <gtest/gtest.h>

#include "merlin/core/report/csv_writer.h"
#include "merlin/core/report/json_writer.h"

namespace merlin::run {
namespace {

std::vector<TaskRow> tasks() {
  TaskRow waiting{"post", "post", "post_q", {}};
  TaskRow done{"sim", "sim/03", "sim_q", {}};
  done.detail.state = TaskState::kFinished;
  done.detail.outcome = Outcome::kSuccess;
  done.detail.seconds = 0.0146826813f;  // a float, as journals hold it
  done.detail.starts = 3;
  done.detail.started_at = 1795565015;
  done.detail.first_started_at = 1795564990;  // two attempts before this one
  done.detail.ended_at = 1795565016;
  done.detail.worker = "simmer";
  return {done, waiting};
}

TEST(TaskTable, JsonHasNullsForWhatHasNotHappenedAndEpochSeconds) {
  EXPECT_EQ(report::to_json(task_table(tasks(), false)),
            "[\n  {\"step\":\"sim\",\"task\":\"sim/03\",\"status\":\"FINISHED\","
            "\"return_code\":\"MERLIN_SUCCESS\",\"elapsed_time\":26,\"run_time\":0.014683,\"restarts\":2,"
            "\"queue\":\"sim_q\",\"worker\":\"simmer\",\"started\":1795565015,"
            "\"ended\":1795565016},\n"
            "  {\"step\":\"post\",\"task\":\"post\",\"status\":\"INITIALIZED\","
            "\"return_code\":null,\"elapsed_time\":null,\"run_time\":null,\"restarts\":0,\"queue\":\"post_q\","
            "\"worker\":null,\"started\":null,\"ended\":null}\n]\n");
}

TEST(TaskTable, CsvShowsNullsEmptyAndRunTimesWithThreeDecimals) {
  const std::string csv = report::to_csv(task_table(tasks(), false));
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "STEP,TASK,STATUS,RETURN CODE,ELAPSED TIME,RUN TIME,RESTARTS,QUEUE,WORKER,STARTED,ENDED");
  EXPECT_NE(csv.find("\nsim,sim/03,FINISHED,MERLIN_SUCCESS,26,0.015,2,sim_q,simmer,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\npost,post,INITIALIZED,,,,0,post_q,,,\n"), std::string::npos) << csv;
}

TEST(TaskTable, PeopleSeeDurations) {
  auto t = task_table(tasks(), true);
  EXPECT_EQ(report::cell_text(t.rows[0][4], t.columns[4]), "26.0s");
  EXPECT_EQ(report::cell_text(t.rows[0][5], t.columns[5]), "0.015s");
  EXPECT_EQ(report::cell_text(t.rows[1][5], t.columns[5]), "");
}

}  // namespace
}  // namespace merlin::run
