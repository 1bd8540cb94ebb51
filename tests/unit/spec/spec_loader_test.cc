// Reading valid specs: every block, defaults, --vars, merge keys, re-emitting.
#include <gtest/gtest.h>

#include "tests/unit/spec/spec_test_util.h"

namespace merlin::spec {
namespace {
using testing::errors_of;
using testing::parse_ok;

constexpr const char* kFull = R"Y(description:
  name: hello_$(N)
  description: every block
env:
  variables:
    N: 10
    OUTPUT_PATH: ./studies
    FLAGS: [-a, -b, 3]
  labels:
    OUT: out.txt
  sources: [a.sh]
batch:
  type: slurm
  bank: b
  queue: pdebug
  shell: /bin/sh
  nodes: 2
  walltime: "01:00:00"
  dry_run: true
study:
  - name: sim
    description: simulate
    run:
      cmd: |
        $(LAUNCHER) echo $(X) $(X.label) $(N) > $(OUT)
      restart: echo again
      procs: 4
      nodes: 1
      cores per task: 2
      walltime: "10:00"
      max_retries: 3
      retry_delay: 0.5
      task_queue: simq
      slurm: --exclusive
      exit_on_error: 1
      batch: {type: flux}
      num resource set: 2
  - name: post
    run:
      cmd: cat $(sim.workspace)/x $(A) $(MERLIN_SAMPLE_ID)
      depends: [sim_*]
global.parameters:
  X:
    values: [0.50, 1, "a", "0.50"]
    label: X.%%
  Y:
    values: [3, 4, 5, 6]
merlin:
  resources:
    task_server: celery
    overlap: true
    workers:
      w1:
        args: -l INFO --concurrency 2
        steps: [sim]
        nodes: 1
        machines: [m1]
      w2:
        steps: [post]
        batch: {type: local}
  samples:
    generate:
      cmd: echo gen
    file: $(MERLIN_INFO)/s.csv
    column_labels: [A, B]
    level_max_dirs: 10
    allow_shell_metacharacters: true
user:
  anything: [1, {x: y}]
)Y";

TEST(SpecLoader, ReadsEveryBlockWithValuesAsMerlinPrintsThem) {
  LoadedSpec l = parse_ok(kFull);
  const StudySpec& s = l.spec;
  EXPECT_EQ(s.name, "hello_$(N)");
  EXPECT_EQ(s.name_where.line, 2);
  EXPECT_EQ(s.name_where.column, 9);
  ASSERT_EQ(s.variables.size(), 3u);
  EXPECT_EQ(s.variables[0].name, "N");
  EXPECT_EQ(s.variables[0].value, "10");
  EXPECT_EQ(s.variables[2].value, "-a -b 3");
  EXPECT_EQ(s.labels.at(0).value, "out.txt");
  EXPECT_EQ(s.sources, std::vector<std::string>{"a.sh"});
  EXPECT_EQ(s.batch.type, "slurm");
  EXPECT_EQ(s.batch.walltime, "01:00:00");
  EXPECT_TRUE(s.batch.dry_run);
  ASSERT_EQ(s.steps.size(), 2u);
  const StepRun& r = s.steps[0].run;
  EXPECT_EQ(r.cmd.value, "$(LAUNCHER) echo $(X) $(X.label) $(N) > $(OUT)\n");
  EXPECT_EQ(r.restart.value, "echo again");
  EXPECT_EQ(r.procs, "4");
  EXPECT_EQ(r.cores_per_task, "2");
  EXPECT_EQ(r.max_retries, 3);
  EXPECT_DOUBLE_EQ(r.retry_delay, 0.5);
  EXPECT_EQ(r.task_queue, "simq");
  EXPECT_EQ(r.launcher_flags.at("slurm"), "--exclusive");
  EXPECT_TRUE(r.exit_on_error);
  EXPECT_EQ(r.batch_type, "flux");
  EXPECT_EQ(r.other.at("num resource set"), "2");
  EXPECT_EQ(r.shell, "/bin/sh");  // from the batch block
  EXPECT_EQ(s.steps[1].run.depends.at(0).value, "sim_*");
  ASSERT_EQ(s.parameters.size(), 2u);
  // Plain scalars as Merlin prints them (PyYAML, then str()); a quoted one as written.
  EXPECT_EQ(s.parameters[0].values, (std::vector<std::string>{"0.5", "1", "a", "0.50"}));
  EXPECT_EQ(s.parameters[1].label, "Y.%%");
  EXPECT_TRUE(s.has_merlin_block);
  EXPECT_TRUE(s.overlap);
  ASSERT_EQ(s.workers.size(), 2u);
  EXPECT_EQ(s.workers[0].args, "-l INFO --concurrency 2");
  EXPECT_EQ(s.workers[0].machines, std::vector<std::string>{"m1"});
  ASSERT_TRUE(s.workers[1].batch.has_value());
  EXPECT_EQ(s.workers[1].batch->type, "local");
  EXPECT_EQ(s.workers[1].batch->bank, "b");  // inherited from the study's batch
  ASSERT_TRUE(s.samples.has_value());
  EXPECT_EQ(s.samples->generate_cmd, "echo gen");
  EXPECT_EQ(s.samples->column_labels, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(s.samples->level_max_dirs, 10);
  EXPECT_TRUE(s.allow_shell_metachars);
  EXPECT_TRUE(l.warnings.empty());
  EXPECT_EQ(s.source_text, kFull);
}

TEST(SpecLoader, PlainMaestroSpecGetsMerlinDefaultsAndOneDefaultWorker) {
  LoadedSpec l = parse_ok(R"Y(
description: {name: plain}
study:
  - name: a
    run: {cmd: echo a}
  - name: b
    run: {cmd: echo b, depends: [a]}
)Y");
  const StudySpec& s = l.spec;
  EXPECT_FALSE(s.has_merlin_block);
  EXPECT_EQ(s.batch.type, "local");
  EXPECT_EQ(s.batch.shell, "/bin/bash");
  EXPECT_EQ(s.steps[0].run.max_retries, 30);
  EXPECT_DOUBLE_EQ(s.steps[0].run.retry_delay, 1.0);
  EXPECT_EQ(s.steps[0].run.task_queue, "merlin");
  EXPECT_EQ(s.steps[0].run.shell, "/bin/bash");
  EXPECT_FALSE(s.samples.has_value());
  ASSERT_EQ(s.workers.size(), 1u);
  EXPECT_EQ(s.workers[0].name, "default_worker");
  EXPECT_EQ(s.workers[0].steps, (std::vector<std::string>{"a", "b"}));
}

TEST(SpecLoader, WorkerStepsAllExpandsToEveryStep) {
  LoadedSpec l = parse_ok(R"Y(
description: {name: w}
study:
  - {name: a, run: {cmd: echo a}}
  - {name: b, run: {cmd: echo b}}
merlin:
  resources:
    workers:
      everyone: {steps: [all]}
      nosteps:
)Y");
  ASSERT_EQ(l.spec.workers.size(), 2u);
  EXPECT_EQ(l.spec.workers[0].steps, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(l.spec.workers[1].steps, (std::vector<std::string>{"a", "b"}));
}

TEST(SpecLoader, StepNoWorkerListsGoesToDefaultWorkerWithAWarning) {
  LoadedSpec l = parse_ok(R"Y(description: {name: w}
study:
  - {name: a, run: {cmd: echo a}}
  - {name: b, run: {cmd: echo b, task_queue: qb}}
merlin:
  resources:
    workers:
      only_a: {steps: [a]}
)Y");
  ASSERT_EQ(l.spec.workers.size(), 2u);
  EXPECT_EQ(l.spec.workers[1].name, "default_worker");
  EXPECT_EQ(l.spec.workers[1].steps, std::vector<std::string>{"b"});
  ASSERT_EQ(l.warnings.size(), 1u);
  EXPECT_EQ(l.warnings[0].str(),
            "spec.yaml:4:6: warning: step 'b' is not listed by any worker; it is given to "
            "'default_worker'");
}

// As in Merlin, whose workers consume queues: its slurm_par lists [runs, data] only.
TEST(SpecLoader, StepNoWorkerListsRunsOnTheWorkersOfTheQueueItShares) {
  LoadedSpec l = parse_ok(R"Y(description: {name: w}
study:
  - {name: build, run: {cmd: make, task_queue: par}}
  - {name: runs, run: {cmd: run, depends: [build], task_queue: par}}
  - {name: stop, run: {cmd: exit 0, depends: [runs], task_queue: par}}
merlin:
  resources:
    workers:
      sim: {steps: [runs]}
)Y");
  ASSERT_EQ(l.spec.workers.size(), 1u) << "no default_worker";
  EXPECT_EQ(l.spec.workers[0].steps, std::vector<std::string>{"runs"});
  EXPECT_TRUE(l.warnings.empty()) << l.warnings[0].str();
}

TEST(SpecLoader, MergeKeysCopyAnchoredMapsAndExplicitKeysWin) {
  LoadedSpec l = parse_ok(R"Y(description: {name: m}
user:
  defaults: &run_defaults
    task_queue: shared
    max_retries: 5
    shell: /bin/sh
  more: &more
    procs: 2
    max_retries: 9
study:
  - name: a
    run:
      <<: [*run_defaults, *more]
      cmd: echo a
      max_retries: 7
)Y");
  const StepRun& r = l.spec.steps.at(0).run;
  EXPECT_EQ(r.task_queue, "shared");
  EXPECT_EQ(r.shell, "/bin/sh");
  EXPECT_EQ(r.procs, "2");
  EXPECT_EQ(r.max_retries, 7);
}

TEST(SpecLoader, MergeKeyEarlierSourceWinsOverLater) {
  LoadedSpec l = parse_ok(R"Y(description: {name: m}
user:
  a: &a {max_retries: 1}
  b: &b {max_retries: 2}
study:
  - name: s
    run:
      <<: [*a, *b]
      cmd: echo
)Y");
  EXPECT_EQ(l.spec.steps.at(0).run.max_retries, 1);
}

TEST(SpecLoader, UnknownKeyInsideMergedAnchorIsReportedAtTheAnchor) {
  EXPECT_EQ(errors_of(R"Y(description: {name: m}
user:
  d: &d
    procz: 2
study:
  - name: s
    run:
      <<: *d
      cmd: echo
)Y"),
            "spec.yaml:4:5: unknown key 'procz' in step 's' (did you mean 'procs'?)");
}

TEST(SpecLoader, VarsOverrideVariableValuesKeepingTemplates) {
  LoadOptions o;
  o.vars = {{"N", "20"}, {"LBL", "x"}};
  LoadedSpec l = parse_ok(R"Y(description: {name: v}
env:
  variables:
    N: 10
    M: $(N)_more
  labels:
    LBL: y
study:
  - {name: a, run: {cmd: echo $(M)}}
)Y",
                          o);
  EXPECT_EQ(l.spec.variables.at(0).value, "20");
  EXPECT_EQ(l.spec.variables.at(1).value, "$(N)_more");  // not substituted here
  EXPECT_EQ(l.spec.labels.at(0).value, "x");
}

TEST(SpecLoader, VarsNamingAnUnknownVariableIsAnError) {
  LoadOptions o;
  o.vars = {{"NN", "20"}};
  EXPECT_EQ(errors_of(R"Y(description: {name: v}
env: {variables: {N: 10}}
study:
  - {name: a, run: {cmd: echo}}
)Y",
                      o),
            "spec.yaml: --vars NN=20: the spec has no variable 'NN' in env.variables (did you "
            "mean 'N'?)");
}

TEST(SpecLoader, VarsValueMakingTheNameUnsafeIsAnError) {
  LoadOptions o;
  o.vars = {{"N", "../up"}};
  EXPECT_EQ(errors_of(R"Y(description: {name: $(N)}
env: {variables: {N: ok}}
study:
  - {name: a, run: {cmd: echo}}
)Y",
                      o),
            "spec.yaml:1:21: study name '$(N)' expands to '../up', which cannot be a directory "
            "name: it contains '/'");
}

TEST(SpecLoader, EmitWithOverridesWritesTheNewValues) {
  const char* text = R"Y(description: {name: v}
env:
  variables:
    N: 10
    K: keep
study:
  - {name: a, run: {cmd: echo $(N)}}
)Y";
  auto out = emit_with_overrides(text, {{"N", "20"}});
  ASSERT_TRUE(out.ok()) << out.error().message;
  LoadedSpec l = parse_ok(*out);
  EXPECT_EQ(l.spec.variables.at(0).value, "20");
  EXPECT_EQ(l.spec.variables.at(1).value, "keep");
  EXPECT_EQ(l.spec.steps.at(0).run.cmd.value, "echo $(N)");
  EXPECT_FALSE(emit_with_overrides(text, {{"ZZ", "1"}}).ok());
}

TEST(SpecLoader, EmitKeepsAnchorsUsableByTheLoader) {
  const char* text = R"Y(description: {name: v}
env: {variables: {N: 1}}
user:
  d: &d {task_queue: q}
study:
  - name: a
    run:
      <<: *d
      cmd: echo
)Y";
  auto out = emit_with_overrides(text, {{"N", "2"}});
  ASSERT_TRUE(out.ok());
  LoadedSpec l = parse_ok(*out);
  EXPECT_EQ(l.spec.steps.at(0).run.task_queue, "q");
}

TEST(SpecLoader, DiagnosticStrWithoutLocationOmitsLineAndColumn) {
  Diagnostic d{"f.yaml", {}, "boom", false};
  EXPECT_EQ(d.str(), "f.yaml: boom");
  Diagnostic w{"f.yaml", {3, 4}, "hmm", true};
  EXPECT_EQ(w.str(), "f.yaml:3:4: warning: hmm");
}

}  // namespace
}  // namespace merlin::spec
