// Reading what sbatch, flux batch, bsub and squeue print.
#include "merlin/core/batch/scheduler_text.h"

#include <gtest/gtest.h>

namespace merlin::batch {
namespace {

TEST(SchedulerText, SubmittedJobIds) {
  EXPECT_EQ(submitted_job_id("slurm", "4242\n"), "4242");
  EXPECT_EQ(submitted_job_id("slurm", "4242;cluster2\n"), "4242");
  EXPECT_EQ(submitted_job_id("slurm", "sbatch: warning: x\n77\n"), "77");
  EXPECT_EQ(submitted_job_id("slurm", "Submitted batch job 5\n"), std::nullopt)
      << "only --parsable output is read";
  EXPECT_EQ(submitted_job_id("flux", "f2xpKx4sq\n"), "f2xpKx4sq");
  EXPECT_EQ(submitted_job_id("lsf", "Job <123> is submitted to queue <pbatch>.\n"), "123");
  EXPECT_EQ(submitted_job_id("lsf", "Request aborted by esub.\n"), std::nullopt);
  EXPECT_EQ(submitted_job_id("slurm", ""), std::nullopt);
}

TEST(SchedulerText, SlurmTimeLeft) {
  EXPECT_EQ(slurm_time_left("4:05"), 245);
  EXPECT_EQ(slurm_time_left("1:00:00\n"), 3600);
  EXPECT_EQ(slurm_time_left("2-03:00:01"), 2 * 86400 + 3 * 3600 + 1);
  EXPECT_EQ(slurm_time_left("1-02"), 86400 + 2 * 3600);
  EXPECT_EQ(slurm_time_left("1-02:30"), 86400 + 2 * 3600 + 30 * 60);
  EXPECT_EQ(slurm_time_left("UNLIMITED"), std::nullopt);
  EXPECT_EQ(slurm_time_left("NOT_SET"), std::nullopt);
  EXPECT_EQ(slurm_time_left("INVALID"), std::nullopt);
}

}  // namespace
}  // namespace merlin::batch
