// Worker batch jobs: the exact scripts for slurm, flux, lsf and lsf-srun, and the launch line
// inside an allocation (golden texts: a scheduler reads every character).
#include "merlin/core/batch/worker_job.h"

#include <gtest/gtest.h>

#include "merlin/core/batch/walltime.h"

namespace merlin::batch {
namespace {

WorkerJob job(const std::string& type) {
  WorkerJob j;
  j.worker = "sim_worker";
  j.job_name = "merlin_demo_sim_worker";
  j.batch.type = type;
  j.batch.queue = "pbatch";
  j.batch.bank = "physics";
  j.batch.walltime = "1:30:05";
  j.nodes = 2;
  j.command = "/opt/merlin run-workers /w/demo.yaml --worker sim_worker --here --exit-when-done";
  j.log_dir = "/w/merlin_workers";
  return j;
}

TEST(WorkerJob, SlurmScript) {
  auto s = render_job_script(job("slurm"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(*s, R"(#!/bin/bash
#SBATCH --job-name=merlin_demo_sim_worker
#SBATCH --nodes=2
#SBATCH --exclusive
#SBATCH --time=01:30:05
#SBATCH --partition=pbatch
#SBATCH --account=physics
#SBATCH --output=/w/merlin_workers/sim_worker-%j.out

# merlin worker 'sim_worker': one worker process per node; each exits when the study has no work left for
# it (or drains before the time limit), so the allocation ends with the study.
srun --mpi=none --overlap -N 2 -n 2 -p pbatch /opt/merlin run-workers /w/demo.yaml --worker sim_worker --here --exit-when-done
)");
}

TEST(WorkerJob, SlurmBurstBufferLinesFollowTheSbatchLines) {
  WorkerJob j = job("slurm");
  j.batch.bb = {"jobdw capacity=100GB access_mode=striped type=scratch",
                "#DW stage_in source=/lus/in destination=$DW_JOB_STRIPED/in type=directory"};
  auto s = render_job_script(j);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(*s, R"(#!/bin/bash
#SBATCH --job-name=merlin_demo_sim_worker
#SBATCH --nodes=2
#SBATCH --exclusive
#SBATCH --time=01:30:05
#SBATCH --partition=pbatch
#SBATCH --account=physics
#SBATCH --output=/w/merlin_workers/sim_worker-%j.out
#BB jobdw capacity=100GB access_mode=striped type=scratch
#DW stage_in source=/lus/in destination=$DW_JOB_STRIPED/in type=directory

# merlin worker 'sim_worker': one worker process per node; each exits when the study has no work left for
# it (or drains before the time limit), so the allocation ends with the study.
srun --mpi=none --overlap -N 2 -n 2 -p pbatch /opt/merlin run-workers /w/demo.yaml --worker sim_worker --here --exit-when-done
)");
}

TEST(WorkerJob, FluxScript) {
  auto s = render_job_script(job("flux"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(*s, R"(#!/bin/bash
#flux: --job-name=merlin_demo_sim_worker
#flux: -N 2
#flux: -t 5405s
#flux: -q pbatch
#flux: --bank=physics
#flux: --output=/w/merlin_workers/sim_worker-{{id}}.out

# merlin worker 'sim_worker': one worker process per node; each exits when the study has no work left for
# it (or drains before the time limit), so the allocation ends with the study.
flux run -N 2 -n 2 /opt/merlin run-workers /w/demo.yaml --worker sim_worker --here --exit-when-done
)");
}

TEST(WorkerJob, LsfScript) {
  auto s = render_job_script(job("lsf"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(*s, R"(#!/bin/bash
#BSUB -J merlin_demo_sim_worker
#BSUB -nnodes 2
#BSUB -W 91
#BSUB -q pbatch
#BSUB -G physics
#BSUB -o /w/merlin_workers/sim_worker-%J.out

# merlin worker 'sim_worker': one worker process per node; each exits when the study has no work left for
# it (or drains before the time limit), so the allocation ends with the study.
jsrun -a 1 -c ALL_CPUS -g ALL_GPUS --bind=none -n 2 /opt/merlin run-workers /w/demo.yaml --worker sim_worker --here --exit-when-done
)");
  auto srun = render_job_script(job("lsf-srun"));
  ASSERT_TRUE(srun.ok());
  EXPECT_NE(srun->find("\nsrun --mpi=none --overlap -N 2 -n 2 /opt/merlin"), std::string::npos)
      << "lsf-srun: bsub header, srun inside, no -p\n"
      << *srun;
}

TEST(WorkerJob, ArraysOfWorkerJobs) {
  WorkerJob j = job("slurm");
  j.array = 4;
  auto s = render_job_script(j);
  ASSERT_TRUE(s.ok());
  EXPECT_NE(s->find("#SBATCH --account=physics\n#SBATCH --array=1-4\n"
                    "#SBATCH --output=/w/merlin_workers/sim_worker-%A_%a.out\n"),
            std::string::npos)
      << *s;
  j.batch.type = "lsf";
  s = render_job_script(j);
  ASSERT_TRUE(s.ok());
  EXPECT_NE(s->find("#BSUB -J merlin_demo_sim_worker[1-4]\n"), std::string::npos) << *s;
  EXPECT_NE(s->find("#BSUB -o /w/merlin_workers/sim_worker-%J_%I.out\n"), std::string::npos);
  j.batch.type = "flux";
  EXPECT_FALSE(render_job_script(j).ok()) << "flux batch has no arrays";
}

TEST(WorkerJob, OptionalHeadersAreLeftOut) {
  WorkerJob j = job("slurm");
  j.batch.queue.clear();
  j.batch.bank.clear();
  j.batch.walltime.clear();
  j.nodes = 1;
  j.log_dir.clear();
  auto s = render_job_script(j);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, R"(#!/bin/bash
#SBATCH --job-name=merlin_demo_sim_worker
#SBATCH --nodes=1
#SBATCH --exclusive
#SBATCH --output=sim_worker-%j.out

# merlin worker 'sim_worker': one worker process per node; each exits when the study has no work left for
# it (or drains before the time limit), so the allocation ends with the study.
srun --mpi=none --overlap -N 1 -n 1 /opt/merlin run-workers /w/demo.yaml --worker sim_worker --here --exit-when-done
)");
}

TEST(WorkerJob, LaunchPreArgsAndWorkerLaunch) {
  WorkerJob j = job("slurm");
  j.batch.queue.clear();
  j.batch.launch_pre = "module load hwloc;";
  j.batch.launch_args = "--exclusive";
  j.command = "merlin run-workers s.yaml --here";
  EXPECT_EQ(node_launch(j),
            "module load hwloc; srun --mpi=none --overlap -N 2 -n 2 --exclusive merlin run-workers "
            "s.yaml "
            "--here");
  j.batch.worker_launch = "srun -N 2 -n 4";
  EXPECT_EQ(node_launch(j),
            "module load hwloc; srun -N 2 -n 4 --exclusive merlin run-workers s.yaml --here");
  j.batch.type = "local";
  EXPECT_EQ(node_launch(j), "merlin run-workers s.yaml --here");
}

TEST(WorkerJob, BadTypeAndWalltimeAreBadInput) {
  WorkerJob j = job("local");
  auto s = render_job_script(j);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kBadInput);
  EXPECT_NE(s.error().message.find("'local' has no batch jobs"), std::string::npos);
  j = job("slurm");
  j.batch.walltime = "$(WALL)";
  s = render_job_script(j);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("walltime '$(WALL)'"), std::string::npos) << s.error().message;
}

TEST(WorkerJob, WalltimeForms) {
  EXPECT_EQ(walltime_seconds("90"), 90);
  EXPECT_EQ(walltime_seconds("10:00"), 600);
  EXPECT_EQ(walltime_seconds("2:03:04"), 7384);
  EXPECT_EQ(walltime_seconds("1:60"), std::nullopt);
  EXPECT_EQ(walltime_seconds(""), std::nullopt);
  EXPECT_EQ(walltime_seconds("1:2:3:4"), std::nullopt);
  EXPECT_EQ(walltime_seconds("1:2:03"), std::nullopt) << "minutes and seconds: 2 digits";
  EXPECT_EQ(walltime_seconds("1h"), std::nullopt);
}

TEST(WorkerJob, SubmitCommands) {
  EXPECT_EQ(submit_program("slurm"), "sbatch --parsable");
  EXPECT_EQ(submit_program("flux"), "flux batch");
  EXPECT_EQ(submit_program("lsf"), "bsub");
  EXPECT_TRUE(submit_reads_stdin("lsf-srun"));
  EXPECT_FALSE(submit_reads_stdin("slurm"));
}

}  // namespace
}  // namespace merlin::batch
