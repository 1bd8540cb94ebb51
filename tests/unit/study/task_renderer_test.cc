// TaskRenderer: (instance, sample, kind) → directory, script text, output paths and env.
// The workspace is "/ws" (see tests/fakes/test_study.h); sample values read "<label><row>".
#include "merlin/core/study/task_renderer.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/fakes/test_study.h"

namespace merlin {
namespace {
using testing::make_study;

std::string env_value(const RenderedTask& t, const std::string& name) {
  for (const auto& [k, v] : t.env)
    if (k == name) return v;
  return "<unset>";
}

bool has_env(const RenderedTask& t, const std::string& name) {
  return std::any_of(t.env.begin(), t.env.end(), [&](const auto& kv) { return kv.first == name; });
}

TEST(TaskRenderer, UnsampledStepRunsInItsStepDirectory) {
  auto s = make_study(R"Y(
description: {name: hello, description: d}
study:
  - name: hello
    description: d
    run: {cmd: echo hi}
)Y");
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("hello"), 0, TaskKind::kCmd);
  EXPECT_EQ(t.dir, "/ws/hello");
  EXPECT_EQ(t.script_path, "/ws/hello/hello.sh");
  EXPECT_EQ(t.out_path, "/ws/hello/hello.out");
  EXPECT_EQ(t.err_path, "/ws/hello/hello.err");
  EXPECT_EQ(t.script_text, "#!/bin/bash\n\necho hi\n");
  EXPECT_EQ(t.shell, "/bin/bash");
  EXPECT_EQ(env_value(t, "WORKSPACE"), "/ws/hello");
  EXPECT_EQ(env_value(t, "MERLIN_WORKSPACE"), "/ws");
  EXPECT_FALSE(has_env(t, "MERLIN_SAMPLE_ID"));
}

TEST(TaskRenderer, StepShellGoesOnTheShebangLine) {
  auto s = make_study(R"Y(
description: {name: sh, description: d}
study:
  - name: py
    description: d
    run:
      cmd: print("hi")
      shell: /usr/bin/env python3
)Y");
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("py"), 0, TaskKind::kCmd);
  EXPECT_EQ(t.script_text, "#!/usr/bin/env python3\n\nprint(\"hi\")\n");
}

TEST(TaskRenderer, MultiLineCommandIsKeptVerbatim) {
  auto s = make_study(R"Y(
description: {name: multi, description: d}
study:
  - name: two
    description: d
    run:
      cmd: |
        echo one
        echo two
)Y");
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("two"), 0, TaskKind::kCmd);
  EXPECT_EQ(t.script_text, "#!/bin/bash\n\necho one\necho two\n\n");
}

constexpr const char* kSamples = R"Y(
description: {name: samples, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: sim
    description: d
    run:
      cmd: echo $(A) $(B) $(MERLIN_SAMPLE_ID) $(MERLIN_SAMPLE_PATH) [$(MERLIN_SAMPLE_VECTOR)] $(MERLIN_SAMPLE_NAMES)
  - name: psim
    description: d
    run:
      cmd: echo $(X) $(X.label) $(A)
merlin:
  samples:
    file: samples.csv
    column_labels: [A, B]
)Y";

TEST(TaskRenderer, SampledStepRunsInItsSampleDirectory) {
  auto s = make_study(kSamples, 100);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("sim"), 27, TaskKind::kCmd);
  EXPECT_EQ(t.dir, "/ws/sim/01/02");
  EXPECT_EQ(t.script_path, "/ws/sim/01/02/sim.sh");
  EXPECT_EQ(t.out_path, "/ws/sim/01/02/sim.out");
  EXPECT_EQ(t.err_path, "/ws/sim/01/02/sim.err");
  EXPECT_EQ(s->renderer->task_dir(s->instance("sim"), 27), "/ws/sim/01/02");
  EXPECT_EQ(s->renderer->instance_dir(s->instance("sim")), "/ws/sim");
}

TEST(TaskRenderer, SampleTokensTakeTheSamplesValues) {
  auto s = make_study(kSamples, 100);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("sim"), 27, TaskKind::kCmd);
  EXPECT_EQ(t.script_text, "#!/bin/bash\n\necho A27 B27 27 01/02 [A27 B27] A B\n");
}

TEST(TaskRenderer, SampleValuesComeFromTheTable) {
  auto s = make_study(kSamples, 3);
  ASSERT_TRUE(s);
  s->table->set(2, 1, "0.4775");
  auto t = s->renderer->render(s->instance("sim"), 2, TaskKind::kCmd);
  EXPECT_NE(t.script_text.find("echo A2 0.4775 2 02"), std::string::npos) << t.script_text;
  EXPECT_EQ(env_value(t, "B"), "0.4775");
}

TEST(TaskRenderer, SampledEnvironmentHasColumnsSampleIdAndPath) {
  auto s = make_study(kSamples, 100);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("sim"), 27, TaskKind::kCmd);
  EXPECT_EQ(env_value(t, "A"), "A27");
  EXPECT_EQ(env_value(t, "B"), "B27");
  EXPECT_EQ(env_value(t, "MERLIN_SAMPLE_ID"), "27");
  EXPECT_EQ(env_value(t, "MERLIN_SAMPLE_PATH"), "01/02");
  EXPECT_EQ(env_value(t, "MERLIN_WORKSPACE"), "/ws");
  EXPECT_EQ(env_value(t, "WORKSPACE"), "/ws/sim/01/02");
}

TEST(TaskRenderer, ParameterisedSampledStepNestsSampleDirsUnderItsLabels) {
  auto s = make_study(kSamples, 10);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("psim", 1), 3, TaskKind::kCmd);
  EXPECT_EQ(t.dir, "/ws/psim/X.2/03");
  EXPECT_EQ(t.script_path, "/ws/psim/X.2/03/psim_X.2.sh");
  EXPECT_EQ(t.out_path, "/ws/psim/X.2/03/psim_X.2.out");
  EXPECT_EQ(t.script_text, "#!/bin/bash\n\necho 2 X.2 A3\n");
}

TEST(TaskRenderer, OneSampleStudyHasNoSampleDirectory) {
  auto s = make_study(kSamples, 1);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("sim"), 0, TaskKind::kCmd);
  EXPECT_EQ(t.dir, "/ws/sim");
  EXPECT_EQ(env_value(t, "MERLIN_SAMPLE_PATH"), "");
}

TEST(TaskRenderer, RenderingIsPerSampleNotCached) {
  auto s = make_study(kSamples, 10);
  ASSERT_TRUE(s);
  auto a = s->renderer->render(s->instance("sim"), 1, TaskKind::kCmd);
  auto b = s->renderer->render(s->instance("sim"), 2, TaskKind::kCmd);
  auto a2 = s->renderer->render(s->instance("sim"), 1, TaskKind::kCmd);
  EXPECT_NE(a.script_text, b.script_text);
  EXPECT_EQ(a.script_text, a2.script_text);
}

TEST(TaskRenderer, ColumnLabelsThatAreNotShellNamesStayOutOfTheEnvironment) {
  auto s = make_study(R"Y(
description: {name: cols, description: d}
study:
  - name: sim
    description: d
    run: {cmd: echo $(MERLIN_SAMPLE_ID)}
merlin:
  samples:
    file: samples.csv
    column_labels: [good_1, 2bad]
)Y",
                      2);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("sim"), 1, TaskKind::kCmd);
  EXPECT_EQ(env_value(t, "good_1"), "good_11");
  EXPECT_FALSE(has_env(t, "2bad"));
}

// A table that counts how it is read: cell (r, c) is "<c>_<r>".
class CountingTable final : public samples::SampleTable {
 public:
  CountingTable(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols) {}
  std::size_t rows() const override { return rows_; }
  std::size_t columns() const override { return cols_; }
  std::string value(std::size_t r, std::size_t c) const override {
    ++cell_reads;
    return std::to_string(c) + "_" + std::to_string(r);
  }
  std::vector<std::string> row_values(std::size_t r) const override {
    ++row_reads;
    std::vector<std::string> out;
    for (std::size_t c = 0; c < cols_; ++c)
      out.push_back(std::to_string(c) + "_" + std::to_string(r));
    return out;
  }
  mutable int cell_reads = 0;
  mutable int row_reads = 0;

 private:
  std::size_t rows_, cols_;
};

// Issue #9, item 8c: each of N tokens and N exported columns read its cell through `value`,
// itself a scan of the row, so a 10^4-column task took ~0.3 s. One row read per task now.
TEST(TaskRenderer, ATaskReadsItsSampleRowOnceWhateverTheColumnCount) {
  constexpr int kColumns = 10'000;
  std::string yaml =
      "description: {name: wide, description: d}\n"
      "study:\n"
      "  - name: sim\n"
      "    run: {cmd: echo $(X0) $(X9999) $(MERLIN_SAMPLE_VECTOR) $(X5000)}\n"
      "merlin:\n"
      "  samples:\n"
      "    file: samples.csv\n"
      "    column_labels: [";
  for (int c = 0; c < kColumns; ++c) yaml += (c ? ", X" : "X") + std::to_string(c);
  yaml += "]\n";
  auto s = make_study(yaml, 3);
  ASSERT_TRUE(s);
  CountingTable table(3, kColumns);
  TaskRenderer renderer(*s->graph, &table);
  auto t = renderer.render(s->instance("sim"), 2, TaskKind::kCmd);
  EXPECT_EQ(table.row_reads, 1);
  EXPECT_EQ(table.cell_reads, 0);
  EXPECT_EQ(t.script_text.rfind("#!/bin/bash\n\necho 0_2 9999_2 0_2 1_2 2_2 ", 0), 0u);
  EXPECT_NE(t.script_text.find(" 5000_2"), std::string::npos);
  EXPECT_EQ(env_value(t, "X0"), "0_2");
  EXPECT_EQ(env_value(t, "X9999"), "9999_2");
  EXPECT_EQ(
      std::count_if(t.env.begin(), t.env.end(), [](const auto& kv) { return kv.first[0] == 'X'; }),
      kColumns);
}

TEST(TaskRenderer, GlobPathHasOneStarPerLevel) {
  constexpr const char* kGlob = R"Y(
description: {name: glob, description: d}
study:
  - name: sim
    description: d
    run: {cmd: echo $(MERLIN_SAMPLE_ID)}
  - name: collect
    description: d
    run:
      cmd: cat $(sim.workspace)/$(MERLIN_GLOB_PATH)out.txt
      depends: [sim]
merlin:
  samples:
    file: samples.csv
    column_labels: [A]
)Y";
  for (auto [n, glob] : std::vector<std::pair<std::uint64_t, std::string>>{
           {1, ""}, {10, "*/"}, {26, "*/*/"}, {1000000, "*/*/*/*/*/"}}) {
    auto s = make_study(kGlob, n);
    ASSERT_TRUE(s);
    auto t = s->renderer->render(s->instance("collect"), 0, TaskKind::kCmd);
    EXPECT_EQ(t.script_text, "#!/bin/bash\n\ncat /ws/sim/" + glob + "out.txt\n") << "N=" << n;
  }
}

TEST(TaskRenderer, PathsAllListsEverySamplePath) {
  auto s = make_study(R"Y(
description: {name: all, description: d}
study:
  - name: list
    description: d
    run: {cmd: echo $(MERLIN_PATHS_ALL)}
merlin:
  samples:
    file: samples.csv
    column_labels: [A]
)Y",
                      3);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("list"), 0, TaskKind::kCmd);
  EXPECT_EQ(t.script_text, "#!/bin/bash\n\necho 00 01 02\n");
}

// --- $(LAUNCHER) -----------------------------------------------------------------------------

std::string launcher_spec(const std::string& batch, const std::string& resources,
                          const std::string& cmd = "$(LAUNCHER) ./app") {
  return "description: {name: l, description: d}\n"
         "batch:\n  type: " +
         batch +
         "\n"
         "study:\n"
         "  - name: app\n"
         "    description: d\n"
         "    run:\n"
         "      cmd: " +
         cmd + "\n" + resources;
}

std::string rendered_cmd(const std::string& yaml) {
  auto s = make_study(yaml);
  if (!s) return "<no study>";
  auto t = s->renderer->render(s->instance("app"), 0, TaskKind::kCmd);
  // The command as written: without the header and the newline the script adds after it.
  return t.script_text.substr(std::string("#!/bin/bash\n\n").size(),
                              t.script_text.size() - std::string("#!/bin/bash\n\n\n").size());
}

TEST(TaskRenderer, SlurmLauncherUsesNodesAndProcs) {
  EXPECT_EQ(rendered_cmd(launcher_spec("slurm", "      nodes: 2\n      procs: 4\n")),
            "srun -n 4 -N 2 ./app");
}

TEST(TaskRenderer, LauncherBracketOverridesNodesAndProcs) {
  EXPECT_EQ(rendered_cmd(launcher_spec("slurm", "      nodes: 2\n      procs: 4\n",
                                       "\"$(LAUNCHER)[1n, 2p] ./app\"")),
            "srun -n 2 -N 1 ./app");
}

TEST(TaskRenderer, LocalLauncherWithOneProcIsEmpty) {
  EXPECT_EQ(rendered_cmd(launcher_spec("local", "      procs: 1\n")), " ./app");
  EXPECT_EQ(rendered_cmd(launcher_spec("local", "")), " ./app");
}

// With a rank shim, $(LAUNCHER) and $(VLAUNCHER) end with it, and the task is marked as one
// that starts ranks (the worker then gives it a MASTER_PORT of its own).
TEST(TaskRenderer, RankShimFollowsTheLauncherAndMarksTheTask) {
  auto s = make_study(launcher_spec("slurm", "      nodes: 1\n      procs: 2\n"));
  ASSERT_TRUE(s);
  TaskRenderer with_shim(*s->graph, s->table.get(), {}, "/x/merlin-rank-env");
  auto t = with_shim.render(s->instance("app"), 0, TaskKind::kCmd);
  EXPECT_NE(t.script_text.find("\nsrun -n 2 -N 1 /x/merlin-rank-env ./app\n"), std::string::npos)
      << t.script_text;
  EXPECT_TRUE(t.starts_ranks);
  EXPECT_TRUE(s->renderer->render(s->instance("app"), 0, TaskKind::kCmd).starts_ranks)
      << "without the shim the task still starts ranks";
  auto v = make_study(launcher_spec("local", "", "\"$(VLAUNCHER) ./app\""));
  ASSERT_TRUE(v);
  TaskRenderer v_shim(*v->graph, v->table.get(), {}, "/x/merlin-rank-env");
  auto vt = v_shim.render(v->instance("app"), 0, TaskKind::kCmd);
  EXPECT_NE(vt.script_text.find("mpirun -np ${MERLIN_PROCS} /x/merlin-rank-env ./app"),
            std::string::npos)
      << vt.script_text;
  EXPECT_TRUE(vt.starts_ranks);
}

TEST(TaskRenderer, OneLocalProcessOrNoLauncherStartsNoRanks) {
  for (const char* resources : {"      procs: 1\n", ""}) {
    auto s = make_study(launcher_spec("local", resources));
    ASSERT_TRUE(s);
    TaskRenderer with_shim(*s->graph, s->table.get(), {}, "/x/merlin-rank-env");
    auto t = with_shim.render(s->instance("app"), 0, TaskKind::kCmd);
    EXPECT_FALSE(t.starts_ranks) << resources;
    EXPECT_EQ(t.script_text.find("merlin-rank-env"), std::string::npos) << t.script_text;
  }
  auto plain = make_study(launcher_spec("slurm", "      procs: 2\n", "./app"));
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->renderer->render(plain->instance("app"), 0, TaskKind::kCmd).starts_ranks)
      << "no $(LAUNCHER) in the command";
}

TEST(TaskRenderer, LocalLauncherWithSeveralProcsUsesMpirun) {
  EXPECT_EQ(rendered_cmd(launcher_spec("local", "      procs: 4\n")), "mpirun -np 4 ./app");
}

TEST(TaskRenderer, SlurmFlagsOfTheStepFollowTheLauncher) {
  EXPECT_EQ(rendered_cmd(launcher_spec(
                "slurm", "      nodes: 1\n      procs: 2\n      slurm: --exclusive\n")),
            "srun -n 2 -N 1 --exclusive ./app");
}

// The step key of every scheduler is read (a `pbs:` key was refused as unknown although the
// PBS launcher looks its flags up), and each scheduler takes the flags of its own key only.
TEST(TaskRenderer, EveryTypesStepFlagsFollowItsLauncher) {
  EXPECT_EQ(rendered_cmd(launcher_spec("pbs",
                                       "      nodes: 2\n      procs: 4\n"
                                       "      pbs: -genv OMP_NUM_THREADS 2\n")),
            "mpiexec -n 4 -ppn 2 -genv OMP_NUM_THREADS 2 ./app");
  EXPECT_EQ(rendered_cmd(launcher_spec("flux",
                                       "      nodes: 1\n      procs: 2\n"
                                       "      flux: -o cpu-affinity=per-task\n"
                                       "      slurm: --exclusive\n")),
            "flux run -n 2 -N 1 -o cpu-affinity=per-task ./app");
}

TEST(TaskRenderer, ResourceFieldsTakeTheStudysVariables) {
  std::string yaml = launcher_spec("slurm",
                                   "      nodes: $(N)\n      procs: $(P)\n"
                                   "      walltime: $(WALL)\n      slurm: $(FLAGS)\n");
  yaml += "env:\n  variables:\n    N: 2\n    P: 8\n    WALL: \"10:00\"\n    FLAGS: --mpi=pmix\n";
  EXPECT_EQ(rendered_cmd(yaml), "srun -n 8 -N 2 -t 00:10:00 --mpi=pmix ./app");
}

// --- script names ----------------------------------------------------------------------------

constexpr const char* kRestart = R"Y(
description: {name: rs, description: d}
study:
  - name: sim
    description: d
    run:
      cmd: echo first
      restart: echo again
  - name: plain
    description: d
    run: {cmd: echo only}
)Y";

TEST(TaskRenderer, RestartKindRunsTheRestartCommandFromItsOwnScript) {
  auto s = make_study(kRestart);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("sim"), 0, TaskKind::kRestart);
  EXPECT_EQ(t.script_path, "/ws/sim/sim.restart.sh");
  EXPECT_EQ(t.script_text, "#!/bin/bash\n\necho again\n");
  EXPECT_EQ(t.out_path, "/ws/sim/sim.out") << "outputs keep the step's base name";
}

TEST(TaskRenderer, RestartKindWithoutARestartCommandRunsTheCommand) {
  auto s = make_study(kRestart);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("plain"), 0, TaskKind::kRestart);
  EXPECT_EQ(t.script_path, "/ws/plain/plain.sh")
      << "Merlin writes no restart script for a step without `restart:`; it runs the step's";
  EXPECT_EQ(t.script_text, "#!/bin/bash\n\necho only\n");
}

TEST(TaskRenderer, SchedulerTypedStudyNamesScriptsDotSlurm) {
  auto s = make_study(R"Y(
description: {name: sl, description: d}
batch: {type: slurm}
study:
  - name: sim
    description: d
    run: {cmd: echo hi, restart: echo again}
)Y");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->renderer->render(s->instance("sim"), 0, TaskKind::kCmd).script_path,
            "/ws/sim/sim.slurm.sh");
  EXPECT_EQ(s->renderer->render(s->instance("sim"), 0, TaskKind::kRestart).script_path,
            "/ws/sim/sim.restart.slurm.sh");
}

// --- $(WORKSPACE) and $(step.workspace) ------------------------------------------------------

constexpr const char* kWorkspaces = R"Y(
description: {name: wsp, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: setup
    description: d
    run: {cmd: echo setup}
  - name: sim
    description: d
    run:
      cmd: echo $(X) $(setup.workspace)
      depends: [setup]
  - name: post
    description: d
    run:
      cmd: echo $(sim.workspace)
      depends: [sim]
  - name: collect
    description: d
    run:
      cmd: echo $(sim.workspace) $(post.workspace) $(MERLIN_WORKSPACE)
      depends: [post_*]
  - name: per_sample
    description: d
    run:
      cmd: echo $(sim.workspace) $(MERLIN_SAMPLE_ID)
      depends: [sim]
merlin:
  samples:
    file: samples.csv
    column_labels: [A]
)Y";

std::string body_of(const testing::TestStudy& s, const std::string& step, std::uint32_t combo,
                    SampleId sample = 0) {
  auto t = s.renderer->render(s.instance(step, combo), sample, TaskKind::kCmd);
  // The command as written: without the header and the newline the script adds after it.
  return t.script_text.substr(std::string("#!/bin/bash\n\n").size(),
                              t.script_text.size() - std::string("#!/bin/bash\n\n\n").size());
}

TEST(TaskRenderer, OtherWorkspaceOfAOneInstanceStepIsItsDirectory) {
  auto s = make_study(kWorkspaces, 10);
  ASSERT_TRUE(s);
  EXPECT_EQ(body_of(*s, "sim", 1), "echo 2 /ws/setup");
}

TEST(TaskRenderer, OtherWorkspaceWithInheritedParametersIsTheSameCombination) {
  auto s = make_study(kWorkspaces, 10);
  ASSERT_TRUE(s);
  EXPECT_EQ(body_of(*s, "post", 0), "echo /ws/sim/X.1");
  EXPECT_EQ(body_of(*s, "post", 1), "echo /ws/sim/X.2");
  EXPECT_EQ(body_of(*s, "per_sample", 1, 4), "echo /ws/sim/X.2 4")
      << "the parent's instance directory, not a sample directory";
}

TEST(TaskRenderer, OtherWorkspaceAcrossAFunnelIsTheStepRootToGlobBelow) {
  auto s = make_study(kWorkspaces, 10);
  ASSERT_TRUE(s);
  EXPECT_EQ(body_of(*s, "collect", 0), "echo /ws/sim /ws/post /ws");
}

// Maestro's rules over {plain, funnel} x {sampled, unsampled} x {parameterised, not}
// (docs/merlin-compatibility.md has the table): a funnel, or a step without parameters, gives
// the top directory; otherwise the instance of this combination; never a sample directory.
constexpr const char* kWorkspaceMatrix = R"Y(
description: {name: wsm, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - {name: plain, description: d, run: {cmd: echo plain}}
  - {name: param, description: d, run: {cmd: echo $(X)}}
  - {name: sampled, description: d, run: {cmd: echo $(A)}}
  - {name: psampled, description: d, run: {cmd: echo $(X) $(A)}}
  - name: uses
    description: d
    run:
      cmd: echo $(plain.workspace) $(param.workspace) $(sampled.workspace) $(psampled.workspace)
      depends: [plain, param, sampled, psampled]
  - name: uses_sampled
    description: d
    run:
      cmd: echo $(A) $(psampled.workspace) $(sampled.workspace)
      depends: [psampled, sampled]
  - name: funnel_with_x
    description: d
    run:
      cmd: echo $(X) $(plain.workspace) $(param.workspace) $(sampled.workspace) $(psampled.workspace)
      depends: [plain_*, param_*, sampled*, psampled*]
  - name: funnel
    description: d
    run:
      cmd: echo $(param.workspace) $(psampled.workspace)
      depends: [param_*, psampled*]
merlin:
  samples:
    file: samples.csv
    column_labels: [A]
)Y";

TEST(TaskRenderer, OtherWorkspaceFollowsMaestrosRulesInEveryCombination) {
  auto s = make_study(kWorkspaceMatrix, 10);
  ASSERT_TRUE(s);
  EXPECT_EQ(body_of(*s, "uses", 1), "echo /ws/plain /ws/param/X.2 /ws/sampled /ws/psampled/X.2");
  const auto sampled = s->renderer->render(s->instance("uses_sampled", 1), 3, TaskKind::kCmd);
  EXPECT_NE(sampled.script_text.find("echo A3 /ws/psampled/X.2 /ws/sampled\n"), std::string::npos)
      << sampled.script_text;
  // Merlin's feature_demo: a funnel step that uses X itself still gets the parents' tops, to
  // glob `$(hello.workspace)/X2.$(X2)/$(MERLIN_GLOB_PATH)` below.
  EXPECT_EQ(body_of(*s, "funnel_with_x", 1), "echo 2 /ws/plain /ws/param /ws/sampled /ws/psampled");
  EXPECT_EQ(s->renderer->instance_dir(s->instance("funnel_with_x", 1)), "/ws/funnel_with_x/X.2");
  EXPECT_EQ(body_of(*s, "funnel", 0), "echo /ws/param /ws/psampled");
}

// $(WORKSPACE) in a step's command is that step instance's own directory (Maestro's meaning).
// Regression: StudyTokens used to map WORKSPACE to the study workspace, and StudyGraph
// substituted it before the renderer could, so every step's $(WORKSPACE) became "/ws".
constexpr const char* kOwnWorkspace = R"Y(
description: {name: own, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: setup
    description: d
    run: {cmd: echo $(WORKSPACE)}
  - name: sim
    description: d
    run:
      cmd: echo $(X) $(WORKSPACE)
  - name: per_sample
    description: d
    run:
      cmd: echo $(WORKSPACE) $(MERLIN_SAMPLE_ID)
      depends: [sim]
merlin:
  samples:
    file: samples.csv
    column_labels: [A]
)Y";

TEST(TaskRenderer, WorkspaceOfAnUnsampledStepIsItsInstanceDirectory) {
  auto s = make_study(kOwnWorkspace, 10);
  ASSERT_TRUE(s);
  EXPECT_EQ(body_of(*s, "setup", 0), "echo /ws/setup");
  EXPECT_EQ(body_of(*s, "sim", 1), "echo 2 /ws/sim/X.2");
}

// As in Merlin 1.13 (its openfoam_wf_singularity example writes $(WORKSPACE)/$(MERLIN_SAMPLE_PATH)
// and gets <ws>/sim_runs/00/00): the step's directory, above the sample directories.
TEST(TaskRenderer, WorkspaceOfASampledStepIsItsInstanceDirectory) {
  auto s = make_study(kOwnWorkspace, 10);
  ASSERT_TRUE(s);
  EXPECT_EQ(body_of(*s, "per_sample", 1, 4), "echo /ws/per_sample/X.2 4");
}

TEST(TaskRenderer, WorkspaceInTheEnvironmentIsTheTaskDirectory) {
  auto s = make_study(kOwnWorkspace, 10);
  ASSERT_TRUE(s);
  auto t = s->renderer->render(s->instance("per_sample", 1), 4, TaskKind::kCmd);
  EXPECT_EQ(env_value(t, "WORKSPACE"), "/ws/per_sample/X.2/04");
  auto u = s->renderer->render(s->instance("setup"), 0, TaskKind::kCmd);
  EXPECT_EQ(env_value(u, "WORKSPACE"), "/ws/setup");
}

}  // namespace
}  // namespace merlin
