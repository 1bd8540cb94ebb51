// Each class of spec error, with its exact message, and all problems reported at once.
#include <gtest/gtest.h>

#include "tests/unit/spec/spec_test_util.h"

namespace merlin::spec {
namespace {
using testing::errors_of;

TEST(SpecErrors, UnknownRunKeySuggestsTheNearKey) {
  EXPECT_EQ(errors_of(R"Y(description:
  name: s
study:
  - name: sim
    run:
      cmd: echo
      procs_per_task: 2
)Y"),
            "spec.yaml:7:7: unknown key 'procs_per_task' in step 'sim' (did you mean 'procs'?)");
}

// A step's launcher flags are read under the key of every scheduler of the table (`pbs:` was
// refused as unknown), and a near miss of one is still an unknown key with a suggestion.
TEST(SpecErrors, EverySchedulersFlagsKeyIsAStepKey) {
  EXPECT_EQ(
      errors_of("description: {name: s}\nbatch: {type: pbs}\n"
                "study: [{name: a, run: {cmd: x, pbs: -V, slurm: -x, flux: -o a, lsf: -b}}]\n"),
      "");
  EXPECT_EQ(errors_of("description: {name: s}\nstudy: [{name: a, run: {cmd: x, pbss: -V}}]\n"),
            "spec.yaml:2:33: unknown key 'pbss' in step 'a' (did you mean 'pbs'?)");
}

TEST(SpecErrors, UnknownTopLevelBlockSuggestsTheNearBlock) {
  EXPECT_EQ(errors_of("description: {name: s}\nstudy: [{name: a, run: {cmd: x}}]\nenvv: {}\n"),
            "spec.yaml:3:1: unknown top-level block 'envv' (did you mean 'env'?)");
}

TEST(SpecErrors, UnknownKeyWithNothingNearHasNoSuggestion) {
  EXPECT_EQ(errors_of("description: {name: s, zzzzzz: 1}\nstudy: [{name: a, run: {cmd: x}}]\n"),
            "spec.yaml:1:24: unknown key 'zzzzzz' in 'description'");
}

TEST(SpecErrors, MissingRequiredBlocksAndKeys) {
  EXPECT_EQ(errors_of("env: {}\n"),
            "spec.yaml: missing required block 'description'\n"
            "spec.yaml: missing required block 'study'");
  EXPECT_EQ(errors_of("description: {description: d}\nstudy:\n  - run: {}\n"),
            "spec.yaml:1:14: missing required key 'name' in 'description'\n"
            "spec.yaml:3:5: missing required key 'name' in step #1\n"
            "spec.yaml:3:10: missing required key 'cmd' in step #1");
  EXPECT_EQ(errors_of("description: {name: s}\nstudy:\n  - name: a\n"),
            "spec.yaml:3:5: missing required key 'run' in step 'a'");
}

TEST(SpecErrors, StudyWithoutStepsIsAnError) {
  EXPECT_EQ(errors_of("description: {name: s}\nstudy: []\n"),
            "spec.yaml:2:1: 'study' has no steps");
  EXPECT_EQ(errors_of("description: {name: s}\nstudy:\n"), "spec.yaml:2:1: 'study' has no steps");
}

TEST(SpecErrors, WrongTypesNameWhatWasExpected) {
  EXPECT_EQ(errors_of("description: {name: s}\nstudy: {a: 1}\n"),
            "spec.yaml:2:8: 'study' must be a list of steps, got a map");
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study:
  - name: a
    run: {cmd: x, max_retries: many, retry_delay: -1, exit_on_error: maybe}
global.parameters:
  X: {values: 3}
)Y"),
            "spec.yaml:4:32: 'max_retries' in step 'a' must be a whole number, got 'many'\n"
            "spec.yaml:4:51: 'retry_delay' in step 'a' must be a number of seconds >= 0, got "
            "'-1'\n"
            "spec.yaml:4:70: 'exit_on_error' in step 'a' must be true or false, got 'maybe'\n"
            "spec.yaml:6:15: 'values' of parameter 'X' must be a list, got '3'");
}

TEST(SpecErrors, DuplicateStepNames) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study:
  - {name: a, run: {cmd: x}}
  - {name: a, run: {cmd: y}}
)Y"),
            "spec.yaml:4:6: duplicate step name 'a' (first defined at line 3)");
}

TEST(SpecErrors, UnknownDependsTargetIncludingFunnels) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study:
  - {name: sim, run: {cmd: x}}
  - {name: post, run: {cmd: y, depends: [simm_*, other]}}
)Y"),
            "spec.yaml:4:42: step 'post' depends on unknown step 'simm' (did you mean 'sim'?)\n"
            "spec.yaml:4:50: step 'post' depends on unknown step 'other'");
}

TEST(SpecErrors, DependencyCycleIsNamedInFull) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study:
  - {name: a, run: {cmd: x, depends: [c]}}
  - {name: b, run: {cmd: x, depends: [a_*]}}
  - {name: c, run: {cmd: x, depends: [b]}}
  - {name: d, run: {cmd: x, depends: [d]}}
)Y"),
            "spec.yaml:4:39: dependency cycle: a -> c -> b -> a\n"
            "spec.yaml:6:39: dependency cycle: d -> d");
}

TEST(SpecErrors, ParameterListsOfUnequalLength) {
  EXPECT_EQ(
      errors_of(R"Y(description: {name: s}
study: [{name: a, run: {cmd: echo $(X) $(Y)}}]
global.parameters:
  X: {values: [1, 2]}
  Y: {values: [1, 2, 3]}
)Y"),
      "spec.yaml:5:3: parameter 'Y' has 3 values but 'X' has 2 values; parameter lists are zipped, "
      "so they must have the same length");
}

TEST(SpecErrors, ColumnLabelClashingWithAParameter) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study: [{name: a, run: {cmd: echo $(X)}}]
global.parameters:
  X: {values: [1, 2]}
merlin:
  samples:
    column_labels: [X, Z]
)Y"),
            "spec.yaml:7:20: column label 'X' clashes with parameter 'X'");
}

LoadOptions strict_tokens() {
  LoadOptions o;
  o.strict_tokens = true;
  return o;
}

TEST(SpecErrors, UnknownTokenIsAWarningLeftForTheShellAsInMerlin) {
  // Merlin's hpc_demo.yaml uses $(ITER), which it never defines: the shell gets it as written.
  auto r = parse_spec(R"Y(description: {name: s}
study:
  - name: a
    run: {cmd: "echo $(ITER)"}
)Y",
                      "spec.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].str(),
            "spec.yaml:4:22: warning: unknown token '$(ITER)' in 'cmd' of step 'a'; it is left "
            "as written, for the shell (an error with `validate --strict`)");
}

TEST(SpecErrors, UnknownTokenIsReportedAtItsOwnLineAndColumn) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
env: {variables: {OUT_DIR: o}}
study:
  - name: a
    run:
      cmd: |
        echo start
        cd $(OUT_DIRR) && echo $(OUT_DIR)
      restart: "echo $(NOPE.x)"
)Y",
                      strict_tokens()),
            "spec.yaml:8:12: unknown token '$(OUT_DIRR)' in 'cmd' of step 'a' (did you mean "
            "'$(OUT_DIR)'?)\n"
            "spec.yaml:9:22: unknown token '$(NOPE.x)' in 'restart' of step 'a'");
}

TEST(SpecErrors, RepeatedUnknownTokenPointsAtEachCopy) {
  EXPECT_EQ(errors_of("description: {name: s}\nstudy:\n  - name: a\n    run:\n      cmd: |\n"
                      "        echo $(Q)\n        echo $(Q)\n",
                      strict_tokens()),
            "spec.yaml:6:14: unknown token '$(Q)' in 'cmd' of step 'a'\n"
            "spec.yaml:7:14: unknown token '$(Q)' in 'cmd' of step 'a'");
}

TEST(SpecErrors, KnownTokensAreAccepted) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
env: {variables: {V: 1}, labels: {L: l}}
study:
  - name: a
    run: {cmd: "echo $(V) $(L) $(P) $(P.label) $(C) $(b.workspace) $(SPECROOT) $(LAUNCHER)[2n, 4p] $(MERLIN_RETRY)"}
  - name: b
    run: {cmd: echo}
global.parameters: {P: {values: [1]}}
merlin: {samples: {column_labels: [C], file: f.csv}}
)Y"),
            "");
}

TEST(SpecErrors, LowercaseShellSubstitutionIsAWarningNotAnError) {
  auto r = parse_spec("description: {name: s}\nstudy: [{name: a, run: {cmd: cd $(pwd)}}]\n",
                      "spec.yaml");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].str(),
            "spec.yaml:2:33: warning: '$(pwd)' in 'cmd' of step 'a' is not a known token; it is "
            "left for the shell to run as a command");
}

TEST(SpecErrors, WorkerNamingAMissingStep) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study: [{name: sim, run: {cmd: x}}]
merlin:
  resources:
    workers:
      w: {steps: [simm]}
)Y"),
            "spec.yaml:2:10: warning: step 'sim' is not listed by any worker; it is given to "
            "'default_worker'\n"
            "spec.yaml:6:7: worker 'w' lists unknown step 'simm' (did you mean 'sim'?)");
}

TEST(SpecErrors, StudyNameThatWouldEscapeOutputPath) {
  EXPECT_EQ(errors_of("description: {name: ../x}\nstudy: [{name: a, run: {cmd: x}}]\n"),
            "spec.yaml:1:21: study name '../x' cannot be a directory name: it contains '/'");
  EXPECT_EQ(errors_of("description: {name: ..}\nstudy: [{name: a, run: {cmd: x}}]\n"),
            "spec.yaml:1:21: study name '..' cannot be a directory name: it starts with '.'");
  EXPECT_EQ(errors_of("description: {name: $(D)}\nenv: {variables: {D: a/..}}\n"
                      "study: [{name: a, run: {cmd: x}}]\n"),
            "spec.yaml:1:21: study name '$(D)' expands to 'a/..', which cannot be a directory "
            "name: it contains '/'");
}

// Issue #9, item 9: names reach shell text through $(MERLIN_WORKSPACE), and a name too long
// for a directory failed at mkdir with exit 1.
TEST(SpecErrors, StudyNamesOfMerlinsExamplesPass) {
  for (const char* name : {"hello", "hello_samples", "feature_demo", "openfoam_wf", "lsf_par",
                           "simple_chain", "study.v2", "run-3", "_tmp", "2024"}) {
    EXPECT_EQ(errors_of(std::string("description: {name: ") + name +
                        "}\nstudy: [{name: a, run: {cmd: x}}]\n"),
              "")
        << name;
  }
}

TEST(SpecErrors, StudyNameWithShellTextSpacesOrTabsIsRefused) {
  const std::string study = "\nstudy: [{name: a, run: {cmd: x}}]\n";
  EXPECT_EQ(errors_of("description: {name: 'a$(touch x)'}" + study),
            "spec.yaml:1:21: study name 'a$(touch x)' cannot be a directory name: it contains '$' "
            "(only letters, digits, '_', '-' and '.' are allowed)");
  EXPECT_EQ(errors_of("description: {name: \"a\\tb\"}" + study),
            "spec.yaml:1:21: study name 'a\\tb' cannot be a directory name: it contains '\\t' "
            "(only letters, digits, '_', '-' and '.' are allowed)");
  EXPECT_EQ(errors_of("description: {name: -rf}" + study),
            "spec.yaml:1:21: study name '-rf' cannot be a directory name: it starts with '-'");
}

TEST(SpecErrors, StudyNameSetThroughVarsIsCheckedAfterTheOverride) {
  LoadOptions o;
  o.vars = {{"NAME", "x y"}};
  EXPECT_EQ(errors_of("description: {name: $(NAME)}\nenv: {variables: {NAME: ok}}\n"
                      "study: [{name: a, run: {cmd: x}}]\n",
                      o),
            "spec.yaml:1:21: study name '$(NAME)' expands to 'x y', which cannot be a directory "
            "name: it contains ' ' (only letters, digits, '_', '-' and '.' are allowed)");
}

TEST(SpecErrors, StudyNameLongerThanAWorkspaceDirectoryMayBeIsRefused) {
  const std::string study = "}\nstudy: [{name: a, run: {cmd: x}}]\n";
  EXPECT_EQ(errors_of("description: {name: " + std::string(239, 'n') + study), "");
  EXPECT_EQ(errors_of("description: {name: " + std::string(240, 'n') + study),
            "spec.yaml:1:21: study name '" + std::string(240, 'n') +
                "' cannot be a directory name: it is 240 bytes long, more than 239 (the workspace "
                "directory '<name>_YYYYMMDD-HHMMSS' must fit in 255 bytes)");
}

TEST(SpecErrors, ReservedTokenInTheStudyNameIsLeftToRunTime) {
  EXPECT_EQ(errors_of("description: {name: s_$(MERLIN_TIMESTAMP)}\n"
                      "study: [{name: a, run: {cmd: x}}]\n"),
            "");
}

TEST(SpecErrors, StepNameThatCannotBeADirectoryIsRefused) {
  EXPECT_EQ(errors_of("description: {name: s}\nstudy: [{name: .hidden, run: {cmd: x}}]\n"),
            "spec.yaml:2:16: step name '.hidden' cannot be a directory name: it starts with '.'");
  EXPECT_EQ(errors_of("description: {name: s}\nstudy: [{name: -x, run: {cmd: x}}]\n"),
            "spec.yaml:2:16: step name '-x' cannot be a directory name: it starts with '-'");
  EXPECT_EQ(errors_of("description: {name: s}\nstudy: [{name: " + std::string(238, 's') +
                      ", run: {cmd: x}}]\n"),
            "");
  EXPECT_EQ(errors_of("description: {name: s}\nstudy: [{name: " + std::string(239, 's') +
                      ", run: {cmd: x}}]\n"),
            "spec.yaml:2:16: step name '" + std::string(239, 's') +
                "' cannot be a directory name: it is 239 bytes long, more than 238");
}

TEST(SpecErrors, LevelMaxDirsBelowTwo) {
  EXPECT_EQ(errors_of("description: {name: s}\nstudy: [{name: a, run: {cmd: x}}]\n"
                      "merlin: {samples: {level_max_dirs: 1}}\n"),
            "spec.yaml:3:36: 'level_max_dirs' in 'merlin.samples' must be at least 2, got '1'");
}

TEST(SpecErrors, UnknownBatchType) {
  EXPECT_EQ(errors_of("description: {name: s}\nbatch: {type: slurmm}\n"
                      "study: [{name: a, run: {cmd: x, batch: {type: lfs}}}]\n"),
            "spec.yaml:2:15: batch type 'slurmm' in 'batch' is not one of local, slurm, flux, "
            "lsf, lsf-srun, pbs (did you mean 'slurm'?)\n"
            "spec.yaml:3:47: batch type 'lfs' in 'batch' of step 'a' is not one of local, slurm, "
            "flux, lsf, lsf-srun, pbs (did you mean 'lsf'?)");
}

TEST(SpecErrors, NodesAndProcsMustBePositiveWholeNumbersOrATokens) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
env: {variables: {N: 2}}
study:
  - name: a
    run: {cmd: x, nodes: 0, procs: 2.5, gpus: 0, cores per task: $(N)}
)Y"),
            "spec.yaml:5:26: 'nodes' in step 'a' must be a positive whole number, got '0'\n"
            "spec.yaml:5:36: 'procs' in step 'a' must be a positive whole number, got '2.5'");
}

TEST(SpecErrors, WalltimeFormats) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study:
  - {name: a, run: {cmd: x, walltime: "1:00:00"}}
  - {name: b, run: {cmd: x, walltime: "10:00"}}
  - {name: c, run: {cmd: x, walltime: 3600}}
  - {name: d, run: {cmd: x, walltime: 1h}}
  - {name: e, run: {cmd: x, walltime: "1:75"}}
)Y"),
            "spec.yaml:6:39: 'walltime' in step 'd' must be HH:MM:SS, MM:SS or a number of "
            "seconds, got '1h'\n"
            "spec.yaml:7:39: 'walltime' in step 'e' must be HH:MM:SS, MM:SS or a number of "
            "seconds, got '1:75'");
}

TEST(SpecErrors, VariableRedefiningAReservedName) {
  EXPECT_EQ(errors_of("description: {name: s}\nenv: {variables: {SPECROOT: x, OUTPUT_PATH: o}}\n"
                      "study: [{name: a, run: {cmd: x}}]\n"),
            "spec.yaml:2:19: variable 'SPECROOT' redefines a name Merlin reserves");
}

TEST(SpecErrors, AllProblemsAreReportedAtOnceInFileOrder) {
  EXPECT_EQ(errors_of(R"Y(description:
  name: s
  nmae: t
batch: {type: pbs, walltime: forever}
study:
  - name: a
    run:
      cmd: echo $(MISSING)
      depends: [nope]
      max_retries: -1
  - name: a
    run: {cmd: x}
global.parameters:
  X: {values: [1], labl: X.%%}
)Y",
                      strict_tokens()),
            "spec.yaml:3:3: unknown key 'nmae' in 'description' (did you mean 'name'?)\n"
            "spec.yaml:4:30: 'walltime' in 'batch' must be HH:MM:SS, MM:SS or a number of "
            "seconds, got 'forever'\n"
            "spec.yaml:8:17: unknown token '$(MISSING)' in 'cmd' of step 'a'\n"
            "spec.yaml:9:17: step 'a' depends on unknown step 'nope'\n"
            "spec.yaml:10:20: 'max_retries' in step 'a' must be at least 0, got '-1'\n"
            "spec.yaml:11:5: duplicate step name 'a' (first defined at line 6)\n"
            "spec.yaml:14:20: unknown key 'labl' in parameter 'X' (did you mean 'label'?)");
}

}  // namespace
}  // namespace merlin::spec
