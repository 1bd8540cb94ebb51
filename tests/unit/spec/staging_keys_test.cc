// The staging extension's spec keys (docs/staging.md): read as written, a spec without them
// unchanged, `bb:` as one line or a list.
#include <gtest/gtest.h>

#include "tests/unit/spec/spec_test_util.h"

namespace merlin::spec {
namespace {
using testing::errors_of;
using testing::parse_ok;

TEST(SpecStaging, KeysAreReadAsWritten) {
  auto s = parse_ok(R"Y(
description: {name: st, description: d}
batch:
  type: slurm
  bb: "#DW jobdw capacity=10GB access_mode=private type=scratch"
study:
  - name: sim
    description: d
    run:
      cmd: echo hi > r.json
      scratch: /local/$SLURM_JOB_ID
      stage_out: [r.json, "out/*.npy"]
      stage_in: [$(SPECROOT)/t.dat]
merlin:
  resources:
    workers:
      w:
        steps: [all]
        batch: {bb: [jobdw capacity=1GB, "#DW persistentdw name=x"]}
)Y");
  const auto& run = s.spec.steps.at(0).run;
  ASSERT_TRUE(run.scratch);
  EXPECT_EQ(run.scratch->value, "/local/$SLURM_JOB_ID");
  EXPECT_EQ(run.scratch->where.line, 11);  // 1-based; the text starts with a newline
  ASSERT_EQ(run.stage_out.size(), 2u);
  EXPECT_EQ(run.stage_out[1].value, "out/*.npy");
  ASSERT_EQ(run.stage_in.size(), 1u);
  EXPECT_TRUE(run.other.empty()) << "staging keys are not kept raw";
  EXPECT_EQ(s.spec.batch.bb,
            (std::vector<std::string>{"#DW jobdw capacity=10GB access_mode=private type=scratch"}));
  ASSERT_TRUE(s.spec.workers.at(0).batch);
  EXPECT_EQ(s.spec.workers.at(0).batch->bb,
            (std::vector<std::string>{"jobdw capacity=1GB", "#DW persistentdw name=x"}));
}

TEST(SpecStaging, AStepWithoutTheKeysHasNoScratch) {
  auto s = parse_ok(
      "description: {name: a, description: d}\nstudy:\n  - name: a\n"
      "    description: d\n    run: {cmd: echo}\n");
  EXPECT_FALSE(s.spec.steps.at(0).run.scratch);
  EXPECT_TRUE(s.spec.steps.at(0).run.stage_out.empty());
}

TEST(SpecStaging, ProblemsAreReportedAtOnceWithTheirPlaces) {
  const std::string e = errors_of(R"Y(
description: {name: st, description: d}
study:
  - name: a
    description: d
    run:
      cmd: echo
      stage_out: [../x, /abs]
  - name: b
    description: d
    run:
      cmd: echo
      scratch: {path: x}
      stage_in: x.dat
)Y");
  EXPECT_NE(e.find("spec.yaml:8:7: 'stage_out' in step 'a' needs 'scratch'"), std::string::npos)
      << e;
  EXPECT_NE(e.find("spec.yaml:8:19: stage_out pattern '../x' in step 'a' holds '..'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("stage_out pattern '/abs' in step 'a' is an absolute path"), std::string::npos)
      << e;
  EXPECT_NE(e.find("spec.yaml:13:16: 'scratch' in step 'b' must be 'auto' or a path, got a map"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("'stage_in' in step 'b'"), std::string::npos) << e;
}

}  // namespace
}  // namespace merlin::spec
