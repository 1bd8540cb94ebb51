// StudyGraph: steps × parameter combinations, sampled steps, and the edges between instances.
#include "merlin/core/study/study_graph.h"

#include <gtest/gtest.h>

#include "merlin/core/spec/spec_loader.h"
#include "tests/fakes/test_study.h"

namespace merlin {
namespace {
using testing::make_study;

std::vector<std::string> labels_of(const StudyGraph& g, const std::string& step) {
  std::vector<std::string> out;
  for (const auto& inst : g.instances())
    if (g.step(inst.step).name == step) out.push_back(inst.labels);
  return out;
}

const StepNode& node(const StudyGraph& g, const std::string& name) {
  for (const auto& n : g.steps())
    if (n.name == name) return n;
  ADD_FAILURE() << "no step " << name;
  return g.steps().front();
}

TEST(StudyGraph, ParametersAreZippedIntoCombinations) {
  auto s = make_study(R"Y(
description: {name: zip, description: d}
global.parameters:
  X2: {values: [0.5, 1.5, 2.5], label: X2.%%}
  N_NEW: {values: [10, 20, 30], label: N_NEW.%%}
study:
  - name: sim
    description: d
    run: {cmd: echo $(X2) $(N_NEW)}
)Y");
  ASSERT_TRUE(s);
  const auto& sim = node(*s->graph, "sim");
  EXPECT_EQ(sim.instance_count, 3u) << "zipped, not a cross product";
  EXPECT_EQ(s->graph->param_value("X2", 1), "1.5");
  EXPECT_EQ(s->graph->param_value("N_NEW", 1), "20");
  EXPECT_EQ(s->graph->param_label("X2", 2), "X2.2.5");
}

TEST(StudyGraph, LabelsAreJoinedInParameterNameOrder) {
  auto s = make_study(R"Y(
description: {name: labels, description: d}
global.parameters:
  X2: {values: [0.5, 1], label: X2.%%}
  N_NEW: {values: [10, 20], label: N_NEW.%%}
study:
  - name: sim
    description: d
    run: {cmd: echo $(X2) $(N_NEW)}
)Y");
  ASSERT_TRUE(s);
  EXPECT_EQ(labels_of(*s->graph, "sim"),
            (std::vector<std::string>{"N_NEW.10.X2.0.5", "N_NEW.20.X2.1"}));
  EXPECT_EQ(node(*s->graph, "sim").used_params, (std::vector<std::string>{"N_NEW", "X2"}));
}

TEST(StudyGraph, DefaultLabelIsNameDotValue) {
  auto s = make_study(R"Y(
description: {name: labels, description: d}
global.parameters:
  X: {values: [1, 2]}
study:
  - name: sim
    description: d
    run: {cmd: echo $(X.label)}
)Y");
  ASSERT_TRUE(s);
  EXPECT_EQ(labels_of(*s->graph, "sim"), (std::vector<std::string>{"X.1", "X.2"}));
}

TEST(StudyGraph, StepNotUsingParametersHasOneInstance) {
  auto s = make_study(R"Y(
description: {name: one, description: d}
global.parameters:
  X: {values: [1, 2, 3]}
study:
  - name: setup
    description: d
    run: {cmd: echo setup}
  - name: sim
    description: d
    run: {cmd: echo $(X)}
)Y");
  ASSERT_TRUE(s);
  const auto& setup = node(*s->graph, "setup");
  EXPECT_EQ(setup.instance_count, 1u);
  EXPECT_TRUE(setup.used_params.empty());
  const auto& inst = s->graph->instance(setup.first_instance);
  EXPECT_EQ(inst.combo, -1);
  EXPECT_EQ(inst.labels, "");
  EXPECT_EQ(inst.rel_dir, "setup");
  EXPECT_EQ(inst.base_name, "setup");
  EXPECT_EQ(node(*s->graph, "sim").instance_count, 3u);
  EXPECT_EQ(s->graph->instances().size(), 4u);
}

TEST(StudyGraph, ParameterisedInstanceLivesInStepSlashLabels) {
  auto s = make_study(R"Y(
description: {name: dirs, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: sim
    description: d
    run: {cmd: echo $(X)}
)Y");
  ASSERT_TRUE(s);
  const auto& inst = s->graph->instance(s->instance("sim", 1));
  EXPECT_EQ(inst.rel_dir, "sim/X.2");
  EXPECT_EQ(inst.base_name, "sim_X.2");
  EXPECT_EQ(inst.combo, 1);
}

constexpr const char* kInheritance = R"Y(
description: {name: inherit, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: sim
    description: d
    run: {cmd: echo $(X)}
  - name: post
    description: d
    run:
      cmd: echo post
      depends: [sim]
  - name: collect
    description: d
    run:
      cmd: echo collect
      depends: [sim_*]
)Y";

TEST(StudyGraph, TrailingStarWithoutUnderscoreIsAFunnelAsInMaestro) {
  // Merlin's restart, slurm, lsf and flux examples write `depends: [runs*]`.
  auto s = make_study(R"Y(
description: {name: star, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: runs
    description: d
    run: {cmd: echo $(X)}
  - name: runs_rs
    description: d
    run: {cmd: echo $(X)}
  - name: data
    description: d
    run:
      cmd: echo data
      depends: [runs*, runs_rs*]
)Y");
  ASSERT_TRUE(s);
  const auto& data = node(*s->graph, "data");
  EXPECT_TRUE(data.used_params.empty());
  EXPECT_EQ(data.instance_count, 1u);
  const auto& inst = s->graph->instance(data.first_instance);
  ASSERT_EQ(inst.parents.size(), 4u);
  EXPECT_EQ(inst.parents[0].instance, s->instance("runs", 0));
  EXPECT_EQ(inst.parents[1].instance, s->instance("runs", 1));
  EXPECT_EQ(inst.parents[2].instance, s->instance("runs_rs", 0));
  EXPECT_EQ(inst.parents[3].instance, s->instance("runs_rs", 1));
}

TEST(Dependency, FunnelFormsAndPlainNames) {
  EXPECT_EQ(spec::parse_dependency("sim_*").step, "sim");
  EXPECT_TRUE(spec::parse_dependency("sim_*").funnel);
  EXPECT_EQ(spec::parse_dependency("runs*").step, "runs");
  EXPECT_TRUE(spec::parse_dependency("runs*").funnel);
  EXPECT_EQ(spec::parse_dependency("sim").step, "sim");
  EXPECT_FALSE(spec::parse_dependency("sim").funnel);
  EXPECT_EQ(spec::parse_dependency("*").step, "*");  // no step name: left for validation
  EXPECT_EQ(spec::parse_dependency("_*").step, "_");
}

TEST(StudyGraph, PlainDependencyInheritsTheParentsParameters) {
  auto s = make_study(kInheritance);
  ASSERT_TRUE(s);
  const auto& post = node(*s->graph, "post");
  EXPECT_EQ(post.used_params, std::vector<std::string>{"X"});
  EXPECT_EQ(post.instance_count, 2u);
  EXPECT_EQ(labels_of(*s->graph, "post"), (std::vector<std::string>{"X.1", "X.2"}));
  // Each post instance waits for the sim instance of the same combination only.
  for (std::uint32_t c = 0; c < 2; ++c) {
    const auto& inst = s->graph->instance(s->instance("post", c));
    ASSERT_EQ(inst.parents.size(), 1u);
    EXPECT_EQ(inst.parents[0].instance, s->instance("sim", c));
    EXPECT_EQ(inst.parents[0].kind, EdgeKind::kWhole);
  }
}

TEST(StudyGraph, FunnelDependencyDoesNotInheritAndWaitsForEveryCombination) {
  auto s = make_study(kInheritance);
  ASSERT_TRUE(s);
  const auto& collect = node(*s->graph, "collect");
  EXPECT_TRUE(collect.used_params.empty());
  EXPECT_EQ(collect.instance_count, 1u);
  const auto& inst = s->graph->instance(collect.first_instance);
  ASSERT_EQ(inst.parents.size(), 2u);
  EXPECT_EQ(inst.parents[0].instance, s->instance("sim", 0));
  EXPECT_EQ(inst.parents[1].instance, s->instance("sim", 1));
  for (const auto& e : inst.parents) EXPECT_EQ(e.kind, EdgeKind::kWhole);
  // And the parents know their child.
  for (std::uint32_t c = 0; c < 2; ++c) {
    const auto& sim = s->graph->instance(s->instance("sim", c));
    bool found = false;
    for (const auto& e : sim.children) found |= e.instance == inst.id;
    EXPECT_TRUE(found) << "sim combination " << c;
  }
}

TEST(StudyGraph, ParentsPrecedeChildrenInInstanceOrder) {
  auto s = make_study(R"Y(
description: {name: order, description: d}
study:
  - name: last
    description: d
    run:
      cmd: echo last
      depends: [middle]
  - name: middle
    description: d
    run:
      cmd: echo middle
      depends: [first]
  - name: first
    description: d
    run: {cmd: echo first}
)Y");
  ASSERT_TRUE(s);
  EXPECT_LT(s->instance("first").v, s->instance("middle").v);
  EXPECT_LT(s->instance("middle").v, s->instance("last").v);
}

constexpr const char* kSampled = R"Y(
description: {name: sampled, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: by_column
    description: d
    run: {cmd: echo $(A)}
  - name: by_id
    description: d
    run:
      cmd: |
        # sample $(MERLIN_SAMPLE_ID), mentioned in a comment only
        echo hi
  - name: by_path
    description: d
    run: {cmd: cd $(MERLIN_SAMPLE_PATH)}
  - name: by_restart
    description: d
    run:
      cmd: echo first
      restart: echo $(B)
  - name: plain
    description: d
    run: {cmd: "ls $(MERLIN_GLOB_PATH)"}
merlin:
  samples:
    file: samples.csv
    column_labels: [A, B]
)Y";

TEST(StudyGraph, StepsUsingASampleTokenOrColumnLabelAreSampled) {
  auto s = make_study(kSampled, 10);
  ASSERT_TRUE(s);
  EXPECT_TRUE(node(*s->graph, "by_column").sampled);
  EXPECT_TRUE(node(*s->graph, "by_id").sampled) << "even in a shell comment";
  EXPECT_TRUE(node(*s->graph, "by_path").sampled);
  EXPECT_TRUE(node(*s->graph, "by_restart").sampled);
  EXPECT_FALSE(node(*s->graph, "plain").sampled);
}

TEST(StudyGraph, SampledInstancesCountEverySampleAndOthersOne) {
  auto s = make_study(kSampled, 10);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->graph->instance(s->instance("by_column")).count, 10u);
  EXPECT_EQ(s->graph->instance(s->instance("plain")).count, 1u);
  EXPECT_EQ(s->graph->total_tasks(), 4u * 10u + 1u);
  EXPECT_EQ(s->graph->samples(), 10u);
  EXPECT_EQ(s->graph->hierarchy().levels(), 1);
}

TEST(StudyGraph, SampledStepWithoutSamplesIsAnError) {
  auto loaded = spec::parse_spec(kSampled, "spec.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto tokens = resolve_study_tokens(loaded->spec, {"20240102-030405", "/base", "/ws", "", ""});
  ASSERT_TRUE(tokens.ok());
  auto g = StudyGraph::build(loaded->spec, *tokens, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, ErrorCode::kBadInput);
  EXPECT_NE(g.error().message.find("step 'by_column' uses sample tokens"), std::string::npos)
      << g.error().message;
  EXPECT_EQ(g.error().message.rfind("spec.yaml:", 0), 0u) << g.error().message;
}

TEST(StudyGraph, LevelMaxDirsComesFromTheSpec) {
  auto s = make_study(R"Y(
description: {name: lmd, description: d}
study:
  - name: sim
    description: d
    run: {cmd: echo $(MERLIN_SAMPLE_ID)}
merlin:
  samples:
    file: samples.csv
    column_labels: [A]
    level_max_dirs: 10
)Y",
                      100);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->graph->hierarchy().level_max_dirs(), 10);
  EXPECT_EQ(s->graph->hierarchy().levels(), 2);
}

constexpr const char* kEdges = R"Y(
description: {name: edges, description: d}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: setup
    description: d
    run: {cmd: echo setup}
  - name: sim
    description: d
    run:
      cmd: echo $(X) $(MERLIN_SAMPLE_ID)
      depends: [setup]
  - name: post
    description: d
    run:
      cmd: echo $(A)
      depends: [sim]
  - name: collect
    description: d
    run:
      cmd: echo $(MERLIN_SAMPLE_ID)
      depends: [sim_*]
  - name: report
    description: d
    run:
      cmd: echo report
      depends: [post]
merlin:
  samples:
    file: samples.csv
    column_labels: [A]
)Y";

TEST(StudyGraph, PlainDependencyBetweenTwoSampledStepsIsPerSample) {
  auto s = make_study(kEdges, 5);
  ASSERT_TRUE(s);
  for (std::uint32_t c = 0; c < 2; ++c) {
    const auto& post = s->graph->instance(s->instance("post", c));
    ASSERT_EQ(post.parents.size(), 1u);
    EXPECT_EQ(post.parents[0].instance, s->instance("sim", c));
    EXPECT_EQ(post.parents[0].kind, EdgeKind::kPerSample);
    const auto& sim = s->graph->instance(s->instance("sim", c));
    ASSERT_EQ(sim.children.size(), 2u);  // post (per sample) and collect (whole)
  }
}

TEST(StudyGraph, FunnelBetweenSampledStepsWaitsForTheWholeParent) {
  auto s = make_study(kEdges, 5);
  ASSERT_TRUE(s);
  const auto& collect = s->graph->instance(s->instance("collect"));
  EXPECT_EQ(collect.count, 5u);
  ASSERT_EQ(collect.parents.size(), 2u);
  for (const auto& e : collect.parents) EXPECT_EQ(e.kind, EdgeKind::kWhole);
}

TEST(StudyGraph, EdgesToOrFromAnUnsampledStepAreWhole) {
  auto s = make_study(kEdges, 5);
  ASSERT_TRUE(s);
  const auto& sim = s->graph->instance(s->instance("sim", 1));
  ASSERT_EQ(sim.parents.size(), 1u);
  EXPECT_EQ(sim.parents[0].instance, s->instance("setup"));
  EXPECT_EQ(sim.parents[0].kind, EdgeKind::kWhole);
  const auto& report = s->graph->instance(s->instance("report", 1));
  EXPECT_EQ(report.count, 1u);
  ASSERT_EQ(report.parents.size(), 1u);
  EXPECT_EQ(report.parents[0].instance, s->instance("post", 1));
  EXPECT_EQ(report.parents[0].kind, EdgeKind::kWhole);
  // The unsampled setup feeds every sim combination.
  EXPECT_EQ(s->graph->instance(s->instance("setup")).children.size(), 2u);
}

TEST(StudyGraph, StudyLevelTokensAreSubstitutedIntoCommands) {
  auto s = make_study(R"Y(
description: {name: toks, description: d}
env:
  variables:
    GREETING: hello
study:
  - name: hi
    description: d
    run: {cmd: echo $(GREETING) $(MERLIN_INFO) $(X)}
global.parameters:
  X: {values: [1]}
)Y");
  ASSERT_TRUE(s);
  EXPECT_EQ(node(*s->graph, "hi").cmd, "echo hello /ws/merlin_info $(X)")
      << "parameters stay for the renderer";
}

TEST(StudyGraph, TopologicalOrderPutsDependenciesFirst) {
  auto loaded = spec::parse_spec(R"Y(
description: {name: topo, description: d}
study:
  - name: c
    description: d
    run: {cmd: echo, depends: [b]}
  - name: a
    description: d
    run: {cmd: echo}
  - name: b
    description: d
    run: {cmd: echo, depends: [a]}
)Y",
                                 "spec.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto order = topological_order(loaded->spec);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], StepId{1});  // a
  EXPECT_EQ(order[1], StepId{2});  // b
  EXPECT_EQ(order[2], StepId{0});  // c
}

}  // namespace
}  // namespace merlin
