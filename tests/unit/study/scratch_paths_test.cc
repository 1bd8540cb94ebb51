// Where steps with `scratch:` run: the root `auto` picks, paths expanded from the node's
// environment, the per-task scratch dir, and $(MERLIN_SCRATCH) in the rendered command.
#include "merlin/core/study/scratch_paths.h"

#include <gtest/gtest.h>

#include <map>

#include "merlin/core/study/task_renderer.h"
#include "tests/fakes/test_study.h"

namespace merlin {
namespace {
using testing::make_study;

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(StagingScratchRoot, AutoTakesMerlinScratchThenAppYamlThenTmpdirThenTmp) {
  EXPECT_EQ(
      scratch_root("auto", {env_of({{"MERLIN_SCRATCH", "/nvme/"}, {"TMPDIR", "/t"}}), "/app"}),
      "/nvme");
  EXPECT_EQ(scratch_root("auto", {env_of({{"TMPDIR", "/t"}}), "/app/$USER"}), "/app/$USER");
  EXPECT_EQ(scratch_root("auto", {env_of({{"TMPDIR", "/t"}, {"USER", "ann"}}), "/app/$USER"}),
            "/app/ann");
  EXPECT_EQ(scratch_root("auto", {env_of({{"TMPDIR", "/t"}, {"MERLIN_SCRATCH", ""}}), ""}), "/t");
  EXPECT_EQ(scratch_root("auto", {env_of({}), ""}), "/tmp");
}

TEST(StagingScratchRoot, APathIsExpandedFromTheNodesEnvironment) {
  auto env = env_of({{"SLURM_JOB_ID", "4711"}, {"TMPDIR", "/t"}});
  EXPECT_EQ(scratch_root("/local/$SLURM_JOB_ID", {env, ""}), "/local/4711");
  EXPECT_EQ(scratch_root("${TMPDIR}/sims", {env, ""}), "/t/sims");
  EXPECT_EQ(user_scratch_dir("/local/4711", 1001), "/local/4711/merlin-1001");
  EXPECT_EQ(user_scratch_dir("/", 0), "/merlin-0");
  EXPECT_EQ(study_scratch_dir("/local/4711/merlin-1001", "/lus/me/out/study_20260101-000000"),
            "/local/4711/merlin-1001/merlin-study_20260101-000000");
}

TEST(StagingScratchRoot, TasksRunInTheirOwnScratchDirNamedByTheToken) {
  auto s = make_study(R"Y(
description: {name: st, description: d}
study:
  - name: sim
    description: d
    run:
      cmd: run --out $(MERLIN_SCRATCH)/r.json --id $(MERLIN_SAMPLE_ID)
      scratch: $NODE_SCRATCH/x
      stage_out: [r.json, "*.npy"]
      stage_in: [$(SPECROOT)/table.dat]
  - name: plain
    description: d
    run:
      cmd: echo $(MERLIN_SCRATCH)
merlin:
  samples:
    file: samples.csv
    column_labels: [V]
)Y",
                      30);
  ASSERT_TRUE(s);
  TaskRenderer r(*s->graph, s->table.get(), {env_of({{"NODE_SCRATCH", "/nvme"}}), "", 1001});
  auto t = r.render(s->instance("sim"), 27, TaskKind::kCmd);
  EXPECT_EQ(t.dir, "/ws/sim/01/02");
  EXPECT_EQ(t.scratch_dir, "/nvme/x/merlin-1001/merlin-ws/sim/01/02");
  EXPECT_EQ(t.run_dir(), t.scratch_dir);
  EXPECT_EQ(t.scratch_home, "/nvme/x/merlin-1001") << "the private dir the stager checks";
  EXPECT_EQ(t.stage_in_dir, "/nvme/x/merlin-1001/merlin-ws/stage_in");
  EXPECT_EQ(t.step_dir, "/ws/sim");
  EXPECT_EQ(t.rel_dir, "01/02");
  EXPECT_EQ(t.sample, 27u);
  EXPECT_EQ(t.stage_out, (std::vector<std::string>{"r.json", "*.npy"}));
  ASSERT_EQ(t.stage_in.size(), 1u);
  EXPECT_EQ(t.stage_in[0].substr(t.stage_in[0].size() - 10), "/table.dat");
  EXPECT_EQ(t.script_path, "/ws/sim/01/02/sim.sh") << "the script stays in the workspace";
  EXPECT_NE(t.script_text.find("--out /nvme/x/merlin-1001/merlin-ws/sim/01/02/r.json --id 27"),
            std::string::npos)
      << t.script_text;

  auto p = r.render(s->instance("plain"), 0, TaskKind::kCmd);
  EXPECT_TRUE(p.scratch_dir.empty());
  EXPECT_EQ(p.run_dir(), "/ws/plain");
  EXPECT_EQ(p.script_text, "#!/bin/bash\n\necho /ws/plain\n");
}

}  // namespace
}  // namespace merlin
