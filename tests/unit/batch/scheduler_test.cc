// The scheduler table and PBS, the scheduler added through it: its job script (golden text),
// launchers, submit output and qstat's time left.
#include "merlin/core/batch/scheduler.h"

#include <gtest/gtest.h>

#include "merlin/core/batch/scheduler_text.h"
#include "merlin/core/study/launcher.h"

namespace merlin::batch {
namespace {

TEST(Scheduler, TheTableHoldsEveryBatchTypeASpecMayName) {
  std::vector<std::string> types;
  for (const auto* s : schedulers()) types.push_back(std::string(s->type()));
  EXPECT_EQ(types, (std::vector<std::string>{"local", "slurm", "flux", "lsf", "lsf-srun", "pbs"}));
  EXPECT_EQ(find_scheduler("pbs")->type(), "pbs");
  EXPECT_EQ(find_scheduler("moab"), nullptr);
  for (const auto* s : schedulers()) {
    if (!s->has_jobs()) continue;
    EXPECT_FALSE(s->submit_command().empty()) << s->type();
    EXPECT_FALSE(s->script_extension().empty()) << s->type();
    EXPECT_NE(*s->allocation_variable(), '\0') << s->type();
  }
  EXPECT_EQ(find_scheduler("lsf-srun")->name(), "lsf");
  EXPECT_EQ(find_scheduler("lsf-srun")->flags_key(), "slurm");
}

TEST(Scheduler, EachSchedulerNamesTheVariableThatHoldsItsJobId) {
  EXPECT_STREQ(find_scheduler("slurm")->job_id_variable(), "SLURM_JOB_ID");
  EXPECT_STREQ(find_scheduler("lsf-srun")->job_id_variable(), "SLURM_JOB_ID");
  EXPECT_STREQ(find_scheduler("flux")->job_id_variable(), "FLUX_JOB_ID");
  EXPECT_STREQ(find_scheduler("flux")->allocation_variable(), "FLUX_URI");
  EXPECT_STREQ(find_scheduler("lsf")->job_id_variable(), "LSB_JOBID");
  EXPECT_STREQ(find_scheduler("pbs")->job_id_variable(), "PBS_JOBID");
  EXPECT_STREQ(find_scheduler("local")->job_id_variable(), "");
}

WorkerJob pbs_job() {
  WorkerJob j;
  j.worker = "sim_worker";
  j.job_name = "merlin_demo_sim_worker";
  j.batch.type = "pbs";
  j.batch.queue = "prod";
  j.batch.bank = "physics";
  j.batch.walltime = "1:30:05";
  j.nodes = 2;
  j.command = "/opt/merlin run-workers /w/demo.yaml --worker sim_worker --here --exit-when-done";
  j.log_dir = "/w/merlin_workers";
  return j;
}

TEST(Scheduler, PbsScript) {
  auto s = render_job_script(pbs_job());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(*s, R"(#!/bin/bash
#PBS -N merlin_demo_sim_worker
#PBS -l select=2
#PBS -l place=scatter:excl
#PBS -l walltime=01:30:05
#PBS -q prod
#PBS -A physics
#PBS -j oe
#PBS -o /w/merlin_workers/sim_worker.out

# merlin worker 'sim_worker': one worker process per node; each exits when the study has no work left for
# it (or drains before the time limit), so the allocation ends with the study.
cd "$PBS_O_WORKDIR" || exit 1
mpiexec -n 2 -ppn 1 /opt/merlin run-workers /w/demo.yaml --worker sim_worker --here --exit-when-done
)");
}

TEST(Scheduler, PbsArrayWritesALogPerIndex) {
  auto j = pbs_job();
  j.array = 4;
  j.batch.worker_launch = "aprun -n 2 -N 1";
  auto s = render_job_script(j);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_NE(s->find("#PBS -J 1-4\n"), std::string::npos) << *s;
  EXPECT_NE(s->find("#PBS -o /w/merlin_workers/sim_worker-^array_index^.out\n"), std::string::npos);
  EXPECT_NE(s->find("\naprun -n 2 -N 1 /opt/merlin run-workers"), std::string::npos)
      << "worker_launch replaces mpiexec";
}

TEST(Scheduler, PbsSubmitAndStepLaunchers) {
  EXPECT_EQ(submit_program("pbs"), "qsub");
  EXPECT_FALSE(submit_reads_stdin("pbs"));
  EXPECT_EQ(submitted_job_id("pbs", "1234.pbs01\n"), "1234.pbs01");
  EXPECT_EQ(submitted_job_id("pbs", "1235[].pbs01\n"), "1235[].pbs01");
  EXPECT_EQ(submitted_job_id("pbs", "qsub: Unknown queue\n"), std::nullopt);
  EXPECT_EQ(submitted_job_id("local", "12\n"), std::nullopt);

  LaunchResources r;
  r.batch_type = "pbs";
  r.nodes = 2;
  r.procs = 7;
  EXPECT_EQ(render_launcher(r), "mpiexec -n 7 -ppn 4");
  r.cores_per_task = 8;
  r.extra_flags = "--cpu-bind depth";
  EXPECT_EQ(render_launcher(r), "mpiexec -n 7 -ppn 4 --depth 8 --cpu-bind depth");
}

TEST(Scheduler, PbsTimeLeftFromQstat) {
  // Torque says it outright.
  EXPECT_EQ(pbs_time_left("Job Id: 7.srv\n    Walltime.Remaining = 3540\n"), 3540);
  // PBS Pro: the limit less what is used.
  EXPECT_EQ(pbs_time_left("Job Id: 7.srv\n    Resource_List.walltime = 01:00:00\n"
                          "    resources_used.walltime = 00:10:30\n"),
            2970);
  EXPECT_EQ(pbs_time_left("    Resource_List.walltime = 00:01:00\n"
                          "    resources_used.walltime = 00:02:00\n"),
            0)
      << "past the limit: no time left, never negative";
  EXPECT_EQ(pbs_time_left("Job Id: 7.srv\n    job_state = R\n"), std::nullopt) << "no limit";
}

}  // namespace
}  // namespace merlin::batch
