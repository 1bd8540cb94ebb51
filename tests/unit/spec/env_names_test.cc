// Which column labels reach a step's environment, and the validation of those that must not.
#include <gtest/gtest.h>

#include <string>

#include "merlin/core/spec/env_names.h"
#include "merlin/core/study/task_renderer.h"
#include "tests/unit/spec/spec_test_util.h"

namespace merlin::spec {
namespace {
using testing::errors_of;

TEST(EnvNames, TypicalSampleLabelsAreExported) {
  for (const char* label :
       {"X0",        "X1",         "X9999",    "temperature", "PRESSURE", "N_MODES",    "MSG",
        "SEED",      "INPUT_PATH", "path",     "home",        "seconds",  "node_count", "R_0",
        "HIP_ANGLE", "AR",         "ENVELOPE", "PATHS",       "LDX",      "MERLIN"}) {
    EXPECT_TRUE(is_exported_label(label)) << label;
  }
}

TEST(EnvNames, NamesTheShellLoaderOrLaunchersReadAreNotExported) {
  for (const char* label : {"BASH_ENV",
                            "ENV",
                            "PATH",
                            "LD_PRELOAD",
                            "LD_LIBRARY_PATH",
                            "SHELLOPTS",
                            "BASHOPTS",
                            "HOME",
                            "IFS",
                            "PS4",
                            "CDPATH",
                            "GLOBIGNORE",
                            "PROMPT_COMMAND",
                            "DYLD_INSERT_LIBRARIES",
                            "MALLOC_CHECK_",
                            "GCONV_PATH",
                            "PYTHONPATH",
                            "PYTHONSTARTUP",
                            "PERL5OPT",
                            "PERL5LIB",
                            "RUBYOPT",
                            "NODE_OPTIONS",
                            "TMPDIR",
                            "LANG",
                            "LC_ALL",
                            "TZ",
                            "SHELL",
                            "USER",
                            "LOGNAME",
                            "OMPI_MCA_plm",
                            "PMIX_RANK",
                            "SLURM_JOB_ID",
                            "FLUX_URI",
                            "LSB_JOBID",
                            "HYDRA_LAUNCHER",
                            "I_MPI_PIN",
                            "OMP_NUM_THREADS",
                            "CUDA_VISIBLE_DEVICES",
                            "MERLIN_NODES",
                            "MERLIN_ANYTHING",
                            "WORKSPACE",
                            "GLIBC_TUNABLES",
                            "http_proxy",
                            "JAVA_TOOL_OPTIONS",
                            "GIT_SSH_COMMAND",
                            "MODULEPATH",
                            "CC",
                            "MAKEFLAGS",
                            "_"}) {
    EXPECT_TRUE(env_name_conflict(label).has_value()) << label;
    EXPECT_FALSE(is_exported_label(label)) << label;
  }
}

TEST(EnvNames, LabelsThatAreNotShellIdentifiersAreNeverExported) {
  for (const char* label : {"my-col", "X.1", "2bad", "", "a b"}) {
    EXPECT_FALSE(is_shell_identifier(label)) << label;
    EXPECT_FALSE(is_exported_label(label)) << label;
  }
  EXPECT_TRUE(is_shell_identifier("_x1"));
}

TEST(EnvNames, ComparisonIsCaseSensitiveAsTheEnvironmentIs) {
  EXPECT_TRUE(env_name_conflict("PATH"));
  EXPECT_FALSE(env_name_conflict("Path"));
  EXPECT_FALSE(env_name_conflict("ld_preload"));
}

TEST(EnvNames, ConflictSaysWhatReadsTheNameOrItsFamily) {
  EXPECT_EQ(describe_env_conflict("PATH", *env_name_conflict("PATH")),
            "would set the step's environment variable PATH, which is read by the shell");
  EXPECT_EQ(describe_env_conflict("LD_PRELOAD", *env_name_conflict("LD_PRELOAD")),
            "would set the step's environment variable LD_PRELOAD; LD_* variables are read by "
            "the dynamic loader");
}

TEST(EnvNames, RendererExportsOnlyWhatTheRuleAllows) {
  EXPECT_TRUE(exported_as_env("X0"));
  EXPECT_FALSE(exported_as_env("PATH"));
  EXPECT_FALSE(exported_as_env("BASH_ENV"));
  EXPECT_FALSE(exported_as_env("my-col"));
}

constexpr const char* kSpec = R"Y(description: {name: s, description: d}
study:
  - name: a
    run: {cmd: echo $(X0)}
merlin:
  samples:
    file: samples.csv
    column_labels: [X0, BASH_ENV, my-col, PATH, LD_PRELOAD, MERLIN_NODES, N_MODES]
)Y";

TEST(EnvNames, ValidationRefusesEveryReservedLabelAtItsPosition) {
  EXPECT_EQ(errors_of(kSpec),
            "spec.yaml:8:25: column label 'BASH_ENV' (column 2) would set the step's environment "
            "variable BASH_ENV; BASH* variables are read by the shell; rename the column (see "
            "docs/sample-safety.md)\n"
            "spec.yaml:8:43: column label 'PATH' (column 4) would set the step's environment "
            "variable PATH, which is read by the shell; rename the column (see "
            "docs/sample-safety.md)\n"
            "spec.yaml:8:49: column label 'LD_PRELOAD' (column 5) would set the step's "
            "environment variable LD_PRELOAD; LD_* variables are read by the dynamic loader; "
            "rename the column (see docs/sample-safety.md)\n"
            "spec.yaml:8:61: column label 'MERLIN_NODES' (column 6) would set the step's "
            "environment variable MERLIN_NODES; MERLIN_* variables are set by merlin for every "
            "task; rename the column (see docs/sample-safety.md)");
}

}  // namespace
}  // namespace merlin::spec
