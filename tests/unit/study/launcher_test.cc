// $(LAUNCHER) text from a step's resources, per batch type.
#include "merlin/core/study/launcher.h"

#include <gtest/gtest.h>

namespace merlin {
namespace {

TEST(Launcher, RendersEachBatchType) {
  LaunchResources r;
  r.nodes = 2;
  r.procs = 4;
  r.batch_type = "flux";
  EXPECT_EQ(render_launcher(r), "flux run -n 4 -N 2") << "no -c without cores per task";
  r.gpus = 1;
  EXPECT_EQ(render_launcher(r), "flux run -n 4 -N 2 -g 1");
  r.cores_per_task = 2;
  EXPECT_EQ(render_launcher(r), "flux run -n 4 -N 2 -c 2 -g 1");
  r.cores_per_task = 0;
  r.gpus = 0;
  r.batch_type = "lsf";
  EXPECT_EQ(render_launcher(r), "jsrun --np 4 --nrs 2 -b rs -d plane:2 -X 1");
  r.batch_type = "slurm";
  r.nodes = 0;
  r.procs = 0;
  EXPECT_EQ(render_launcher(r), "") << "neither nodes nor procs";
  r.nodes = 3;
  EXPECT_EQ(render_launcher(r), "srun -n 3 -N 3") << "procs default to nodes";
  EXPECT_EQ(render_vlauncher(r), "srun -n ${MERLIN_PROCS} -N ${MERLIN_NODES} -c ${MERLIN_CORES}");
}

TEST(Launcher, OverrideIgnoresUnknownParts) {
  LaunchResources r;
  r.nodes = 2;
  r.procs = 8;
  auto o = with_override(r, "[4p, 3x]");
  EXPECT_EQ(o.nodes, 2);
  EXPECT_EQ(o.procs, 4);
}

TEST(Launcher, LocalWithOneProcIsEmptyAndWithMoreIsMpirun) {
  LaunchResources r;
  r.procs = 1;
  EXPECT_EQ(render_launcher(r), "");
  r.procs = 4;
  EXPECT_EQ(render_launcher(r), "mpirun -np 4");
}

TEST(Launcher, OverrideSetsNodesAndProcs) {
  LaunchResources r;
  r.batch_type = "slurm";
  r.nodes = 2;
  r.procs = 4;
  EXPECT_EQ(render_launcher(with_override(r, "[1n, 2p]")), "srun -n 2 -N 1");
  EXPECT_EQ(render_launcher(with_override(r, "[3n]")), "srun -n 4 -N 3");
}

// Cores per task, gpus per task, walltime and the step's own flags, per scheduler: the exact
// command lines the steps will run.
TEST(Launcher, ResourceFlagsPerBatchType) {
  LaunchResources r;
  r.nodes = 2;
  r.procs = 8;
  r.cores_per_task = 4;
  r.gpus = 1;
  r.gpus_per_task = 1;
  r.walltime_seconds = 5400;
  r.extra_flags = "--exclusive";
  r.batch_type = "slurm";
  EXPECT_EQ(render_launcher(r), "srun -n 8 -N 2 -c 4 -t 01:30:00 --exclusive");
  r.batch_type = "lsf-srun";
  EXPECT_EQ(render_launcher(r), "srun -n 8 -N 2 -c 4 -t 01:30:00 --exclusive");
  r.batch_type = "flux";
  r.extra_flags = "-o cpu-affinity=per-task";
  EXPECT_EQ(render_launcher(r), "flux run -n 8 -N 2 -c 4 -g 1 -t 5400s -o cpu-affinity=per-task");
  r.batch_type = "lsf";
  r.extra_flags = "--smpiargs=-gpu";
  EXPECT_EQ(render_launcher(r),
            "jsrun --np 8 --nrs 2 -b rs -d plane:4 -X 1 -c 4 -g 1 --smpiargs=-gpu");
  r.batch_type = "local";
  r.extra_flags.clear();
  EXPECT_EQ(render_launcher(r), "mpirun -np 8") << "mpirun takes no scheduler flags";
}

TEST(Launcher, VlauncherReadsTheCountsAtRunTime) {
  LaunchResources r;
  r.nodes = 1;
  r.cores_per_task = 2;
  r.batch_type = "flux";
  EXPECT_EQ(render_vlauncher(r),
            "flux run -n ${MERLIN_PROCS} -N ${MERLIN_NODES} -c ${MERLIN_CORES}");
  r.batch_type = "slurm";
  EXPECT_EQ(render_vlauncher(r), "srun -n ${MERLIN_PROCS} -N ${MERLIN_NODES} -c ${MERLIN_CORES}");
  r.batch_type = "local";
  EXPECT_EQ(render_vlauncher(r), "mpirun -np ${MERLIN_PROCS}");
  r.cores_per_task = 0;
  r.batch_type = "flux";
  EXPECT_EQ(render_vlauncher(r), "flux run -n ${MERLIN_PROCS} -N ${MERLIN_NODES} -c ${MERLIN_CORES}")
      << "Merlin's VLAUNCHER names the cores whether the step has `cores per task` or not";
}

// The rank shim goes last, after the scheduler's flags and the step's own: the step's command
// follows it. The exact lines, for every launcher (docs/training.md).
TEST(Launcher, RankShimEndsEveryLauncher) {
  LaunchResources r;
  r.nodes = 2;
  r.procs = 4;
  r.gpus = 1;
  r.rank_env = "/opt/merlin/bin/merlin-rank-env";
  const std::pair<const char*, const char*> golden[] = {
      {"local", "mpirun -np 4 /opt/merlin/bin/merlin-rank-env"},
      {"slurm", "srun -n 4 -N 2 --exclusive /opt/merlin/bin/merlin-rank-env"},
      {"lsf-srun", "srun -n 4 -N 2 --exclusive /opt/merlin/bin/merlin-rank-env"},
      {"flux", "flux run -n 4 -N 2 -g 1 --exclusive /opt/merlin/bin/merlin-rank-env"},
      {"lsf",
       "jsrun --np 4 --nrs 2 -b rs -d plane:2 -X 1 --exclusive "
       "/opt/merlin/bin/merlin-rank-env"},
      {"pbs", "mpiexec -n 4 -ppn 2 --exclusive /opt/merlin/bin/merlin-rank-env"},
  };
  for (const auto& [type, line] : golden) {
    r.batch_type = type;
    r.extra_flags = std::string(type) == "local" ? "" : "--exclusive";
    EXPECT_EQ(render_launcher(r), line) << type;
  }
  r.batch_type = "slurm";
  r.extra_flags.clear();
  EXPECT_EQ(render_vlauncher(r),
            "srun -n ${MERLIN_PROCS} -N ${MERLIN_NODES} -c ${MERLIN_CORES} "
            "/opt/merlin/bin/merlin-rank-env");
  r.batch_type = "local";
  r.nodes = 0;
  r.procs = 1;
  EXPECT_EQ(render_launcher(r), "") << "one local process has no launcher, so no shim";
}

}  // namespace
}  // namespace merlin
