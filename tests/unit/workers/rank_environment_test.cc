// What merlin-rank-env sets for a rank, from each launcher's variables.
#include "workers/rank_environment.h"

#include <gtest/gtest.h>

#include <map>

namespace merlin {
namespace {

using Env = std::map<std::string, std::string>;
using Set = std::map<std::string, std::string>;

RankEnvironment decide(const Env& env, const Env& files = {}) {
  return rank_environment(
      [&](const std::string& n) -> std::optional<std::string> {
        auto it = env.find(n);
        if (it == env.end()) return std::nullopt;
        return it->second;
      },
      [&](const std::string& path) -> std::optional<std::string> {
        auto it = files.find(path);
        if (it == files.end()) return std::nullopt;
        return it->second;
      });
}

Set as_map(const RankEnvironment& r) { return Set(r.set.begin(), r.set.end()); }

TEST(RankEnvironment, MpirunOnOneNodeMeetsOnLoopbackAtTheWorkersPort) {
  auto r = decide({{"OMPI_COMM_WORLD_RANK", "1"},
                   {"OMPI_COMM_WORLD_SIZE", "2"},
                   {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                   {"MASTER_PORT", "41234"},
                   {"MERLIN_MASTER_ADDR", "vm"}});
  EXPECT_EQ(r.launcher, "mpirun");
  EXPECT_EQ(as_map(r), (Set{{"RANK", "1"},
                            {"WORLD_SIZE", "2"},
                            {"LOCAL_RANK", "1"},
                            {"LOCAL_WORLD_SIZE", "2"},
                            {"NODE_RANK", "0"},
                            {"MASTER_ADDR", "127.0.0.1"}}))
      << "MASTER_PORT is the worker's, left as it is";
  EXPECT_TRUE(r.warnings.empty());
}

TEST(RankEnvironment, SrunAcrossNodesMeetsOnTheStepsFirstNode) {
  auto r = decide({{"SLURM_PROCID", "3"},
                   {"SLURM_STEP_NUM_TASKS", "4"},
                   {"SLURM_LOCALID", "1"},
                   {"SLURM_NODEID", "1"},
                   {"SLURM_STEP_NUM_NODES", "2"},
                   {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"},
                   {"SLURM_STEP_NODELIST", "node[03-04]"},
                   {"MERLIN_MASTER_ADDR", "login1"}});
  EXPECT_EQ(r.launcher, "srun");
  EXPECT_EQ(as_map(r), (Set{{"RANK", "3"},
                            {"WORLD_SIZE", "4"},
                            {"LOCAL_RANK", "1"},
                            {"LOCAL_WORLD_SIZE", "2"},
                            {"NODE_RANK", "1"},
                            {"MASTER_ADDR", "node03"},
                            {"MASTER_PORT", "29500"}}))
      << "no MASTER_PORT from the worker: torchrun's default";
}

TEST(RankEnvironment, UnevenSlurmStepTakesItsOwnNodesCount) {
  auto r = decide({{"SLURM_PROCID", "2"},
                   {"SLURM_NTASKS", "3"},
                   {"SLURM_LOCALID", "0"},
                   {"SLURM_NODEID", "1"},
                   {"SLURM_STEP_TASKS_PER_NODE", "2,1"},
                   {"SLURM_STEP_NODELIST", "a,b"}});
  auto m = as_map(r);
  EXPECT_EQ(m["LOCAL_WORLD_SIZE"], "1");
  EXPECT_EQ(m["NODE_RANK"], "1");
  EXPECT_EQ(m["MASTER_ADDR"], "a");
}

// A worker started by srun (a batch job's node launcher) passes SLURM_PROCID on to the steps it
// runs: under mpirun, the mpirun's numbers are the rank's.
TEST(RankEnvironment, MpirunInsideASlurmJobIsMpirun) {
  auto r = decide({{"SLURM_PROCID", "0"},
                   {"SLURM_NTASKS", "1"},
                   {"OMPI_COMM_WORLD_RANK", "1"},
                   {"OMPI_COMM_WORLD_SIZE", "2"},
                   {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
  EXPECT_EQ(r.launcher, "mpirun");
  EXPECT_EQ(as_map(r)["RANK"], "1");
}

TEST(RankEnvironment, FluxHasNoLocalSizeSoTheNodesCountGivesIt) {
  auto r = decide({{"FLUX_TASK_RANK", "5"},
                   {"FLUX_JOB_SIZE", "8"},
                   {"FLUX_TASK_LOCAL_ID", "1"},
                   {"FLUX_JOB_NNODES", "2"},
                   {"MERLIN_MASTER_ADDR", "node7"},
                   {"MASTER_PORT", "40000"}});
  EXPECT_EQ(r.launcher, "flux");
  auto m = as_map(r);
  EXPECT_EQ(m["LOCAL_WORLD_SIZE"], "4");
  EXPECT_EQ(m["NODE_RANK"], "1");
  EXPECT_EQ(m["MASTER_ADDR"], "node7") << "no node list: the worker's host";
}

TEST(RankEnvironment, JsrunAndMpiexec) {
  auto j = decide({{"JSM_NAMESPACE_RANK", "0"},
                   {"JSM_NAMESPACE_SIZE", "4"},
                   {"JSM_NAMESPACE_LOCAL_RANK", "0"},
                   {"JSM_NAMESPACE_LOCAL_SIZE", "4"}});
  EXPECT_EQ(j.launcher, "jsrun");
  EXPECT_EQ(as_map(j)["MASTER_ADDR"], "127.0.0.1");
  auto m = decide({{"PMI_RANK", "3"},
                   {"PMI_SIZE", "4"},
                   {"MPI_LOCALRANKID", "1"},
                   {"MPI_LOCALNRANKS", "2"},
                   {"PBS_NODEFILE", "/var/spool/pbs/aux/42"}},
                  {{"/var/spool/pbs/aux/42", "cn017"}});
  EXPECT_EQ(m.launcher, "mpiexec");
  EXPECT_EQ(as_map(m)["MASTER_ADDR"], "cn017");
  EXPECT_EQ(as_map(m)["NODE_RANK"], "1");
  auto p = decide({{"PALS_RANKID", "2"},
                   {"PMI_SIZE", "4"},
                   {"PALS_LOCAL_RANKID", "0"},
                   {"PALS_NODEID", "1"},
                   {"MERLIN_NODES", "2"}});
  EXPECT_EQ(p.launcher, "mpiexec");
  EXPECT_EQ(as_map(p)["LOCAL_WORLD_SIZE"], "2");
  EXPECT_EQ(as_map(p)["NODE_RANK"], "1");
}

TEST(RankEnvironment, WhatTheUserSetIsKept) {
  auto r = decide({{"OMPI_COMM_WORLD_RANK", "0"},
                   {"OMPI_COMM_WORLD_SIZE", "2"},
                   {"MASTER_ADDR", "10.0.0.5"},
                   {"MASTER_PORT", "12345"}});
  auto m = as_map(r);
  EXPECT_EQ(m.count("MASTER_ADDR"), 0u);
  EXPECT_EQ(m.count("MASTER_PORT"), 0u);
  EXPECT_EQ(m["LOCAL_WORLD_SIZE"], "2") << "one node assumed without MERLIN_NODES";
}

TEST(RankEnvironment, NoLauncherSetsNothing) {
  auto r = decide({{"PATH", "/bin"}, {"MERLIN_PROCS", "2"}});
  EXPECT_TRUE(r.launcher.empty());
  EXPECT_TRUE(r.set.empty());
  EXPECT_TRUE(r.warnings.empty());
}

TEST(RankEnvironment, NoWorldSizeWarnsAndSetsNothing) {
  auto r = decide({{"FLUX_TASK_RANK", "1"}});
  EXPECT_EQ(r.launcher, "flux");
  EXPECT_TRUE(r.set.empty());
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("no world size"), std::string::npos) << r.warnings[0];
  EXPECT_EQ(as_map(decide({{"FLUX_TASK_RANK", "1"}, {"MERLIN_PROCS", "2"}}))["WORLD_SIZE"], "2")
      << "the step's procs stand in";
}

TEST(RankEnvironment, MultiNodeWithNoWayToTellRankZerosNodeWarns) {
  auto r = decide({{"FLUX_TASK_RANK", "1"}, {"FLUX_JOB_SIZE", "4"}, {"FLUX_JOB_NNODES", "2"}});
  EXPECT_EQ(as_map(r).count("MASTER_ADDR"), 0u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("MASTER_ADDR left unset"), std::string::npos);
}

TEST(RankEnvironment, GpusPerRankFromWhatIsVisible) {
  Env base{{"OMPI_COMM_WORLD_RANK", "1"},
           {"OMPI_COMM_WORLD_SIZE", "2"},
           {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
           {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
           {"MERLIN_GPUS", "2"}};
  EXPECT_EQ(as_map(decide(base))["CUDA_VISIBLE_DEVICES"], "2,3") << "nothing visible set";
  auto env = base;
  env["CUDA_VISIBLE_DEVICES"] = "4,5,6,7";
  EXPECT_EQ(as_map(decide(env))["CUDA_VISIBLE_DEVICES"], "6,7");
  EXPECT_EQ(as_map(decide(env))["ROCR_VISIBLE_DEVICES"], "6,7");
  env["CUDA_VISIBLE_DEVICES"] = "GPU-a,GPU-b";
  EXPECT_EQ(as_map(decide(env))["CUDA_VISIBLE_DEVICES"], "GPU-a,GPU-b")
      << "the launcher bound this rank already";
  env["CUDA_VISIBLE_DEVICES"] = "0,1,2";
  auto short_of = decide(env);
  EXPECT_EQ(as_map(short_of).count("CUDA_VISIBLE_DEVICES"), 0u);
  ASSERT_EQ(short_of.warnings.size(), 1u);
  EXPECT_NE(short_of.warnings[0].find("wants 2 gpus but 3 are visible"), std::string::npos);
  base["MERLIN_GPUS"] = "0";
  EXPECT_EQ(as_map(decide(base)).count("CUDA_VISIBLE_DEVICES"), 0u);
}

TEST(RankEnvironment, FirstHostOfASlurmHostlist) {
  EXPECT_EQ(first_host("node[03-05,9],gpu1"), "node03");
  EXPECT_EQ(first_host("a,b"), "a");
  EXPECT_EQ(first_host("rack[1-2]-n[7-8]"), "rack1-n7");
  EXPECT_EQ(first_host("single"), "single");
  EXPECT_EQ(first_host(""), "");
}

TEST(RankEnvironment, TasksOnNodeReadsSlurmsRepeats) {
  EXPECT_EQ(tasks_on_node("2(x3),1", 0), 2);
  EXPECT_EQ(tasks_on_node("2(x3),1", 2), 2);
  EXPECT_EQ(tasks_on_node("2(x3),1", 3), 1);
  EXPECT_EQ(tasks_on_node("2(x3),1", 4), std::nullopt);
  EXPECT_EQ(tasks_on_node("2(x", 0), std::nullopt);
  EXPECT_EQ(tasks_on_node("x", 0), std::nullopt);
}

}  // namespace
}  // namespace merlin
