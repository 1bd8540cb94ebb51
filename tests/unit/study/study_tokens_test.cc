// Study-level tokens: variables, OUTPUT_PATH, the workspace name and the merlin_info paths.
#include "merlin/core/study/study_tokens.h"

#include <gtest/gtest.h>

#include "merlin/core/spec/spec_loader.h"
#include "merlin/core/study/substitute.h"

namespace merlin {
namespace {

const StudyTokenOptions kOptions{"20240102-030405", "/home/u/run", "", "", ""};

spec::StudySpec parse(const std::string& yaml) {
  auto r = spec::parse_spec(yaml, "specs/study.yaml");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r->spec : spec::StudySpec{};
}

std::string with_env(const std::string& env_block, const std::string& name = "demo") {
  return "description: {name: " + name + ", description: d}\n" + env_block +
         "study:\n"
         "  - name: a\n"
         "    description: d\n"
         "    run: {cmd: echo}\n";
}

TEST(StudyTokens, VariablesResolveInOrderUsingEarlierOnes) {
  auto spec = parse(with_env(R"Y(env:
  variables:
    BASE: 10
    TWICE: $(BASE)$(BASE)
    MSG: n=$(TWICE)
)Y"));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->values.at("BASE"), "10");
  EXPECT_EQ(t->values.at("TWICE"), "1010");
  EXPECT_EQ(t->values.at("MSG"), "n=1010");
  EXPECT_EQ(t->substitute("echo $(MSG) $(UNKNOWN)"), "echo n=1010 $(UNKNOWN)");
}

TEST(StudyTokens, LabelsMayUseVariables) {
  auto spec = parse(with_env(R"Y(env:
  variables:
    N: 3
  labels:
    OUT: out_$(N).txt
)Y"));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->values.at("OUT"), "out_3.txt");
}

TEST(StudyTokens, RelativeOutputPathStartsAtTheWorkingDirectory) {
  auto spec = parse(with_env("env:\n  variables:\n    OUTPUT_PATH: ./studies/\n"));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->output_path, "/home/u/run/studies");
  EXPECT_EQ(t->values.at("OUTPUT_PATH"), "/home/u/run/studies");
  EXPECT_EQ(t->workspace, "/home/u/run/studies/demo_20240102-030405");
}

TEST(StudyTokens, AbsoluteOutputPathIsKept) {
  auto spec = parse(with_env("env:\n  variables:\n    OUTPUT_PATH: /scratch/out\n"));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->output_path, "/scratch/out");
}

TEST(StudyTokens, WithoutOutputPathTheWorkspaceIsInTheWorkingDirectory) {
  auto spec = parse(with_env(""));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->output_path, "/home/u/run");
  EXPECT_EQ(t->workspace, "/home/u/run/demo_20240102-030405");
}

TEST(StudyTokens, WorkspaceIsNameUnderscoreTimestampAndMerlinInfoIsInside) {
  auto spec = parse(with_env(""));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  const std::string ws = "/home/u/run/demo_20240102-030405";
  EXPECT_EQ(t->study_name, "demo");
  EXPECT_EQ(t->values.at("STUDY_NAME"), "demo");
  EXPECT_EQ(t->values.at("MERLIN_TIMESTAMP"), "20240102-030405");
  EXPECT_EQ(t->values.at("MERLIN_WORKSPACE"), ws);
  EXPECT_EQ(t->info_dir, ws + "/merlin_info");
  EXPECT_EQ(t->values.at("MERLIN_INFO"), ws + "/merlin_info");
}

TEST(StudyTokens, SpecCopiesAreNamedAfterTheSpecFile) {
  auto spec = parse(with_env(""));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  const std::string info = "/home/u/run/demo_20240102-030405/merlin_info";
  EXPECT_EQ(t->spec_stem, "study");
  EXPECT_EQ(t->values.at("MERLIN_SPEC_ORIGINAL_TEMPLATE"), info + "/study.orig.yaml");
  EXPECT_EQ(t->values.at("MERLIN_SPEC_EXECUTED_RUN"), info + "/study.partial.yaml");
  EXPECT_EQ(t->values.at("MERLIN_SPEC_ARCHIVED_COPY"), info + "/study.expanded.yaml");
}

TEST(StudyTokens, SpecRootIsTheSpecFilesDirectory) {
  auto spec = parse(with_env(""));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->spec_root, "/home/u/run/specs");
  EXPECT_EQ(t->values.at("SPECROOT"), "/home/u/run/specs");
}

TEST(StudyTokens, ReturnCodesAreTokens) {
  auto spec = parse(with_env(""));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->values.at("MERLIN_SUCCESS"), "0");
  EXPECT_EQ(t->values.at("MERLIN_RESTART"), "100");
  EXPECT_EQ(t->values.at("MERLIN_SOFT_FAIL"), "101");
  EXPECT_EQ(t->values.at("MERLIN_HARD_FAIL"), "102");
  EXPECT_EQ(t->values.at("MERLIN_RETRY"), "104");
  EXPECT_EQ(t->values.at("MERLIN_STOP_WORKERS"), "105");
}

TEST(StudyTokens, VariablesMayUseWorkspaceTokens) {
  auto spec = parse(with_env("env:\n  variables:\n    SAMPLES: $(MERLIN_INFO)/samples.npy\n"));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->values.at("SAMPLES"), "/home/u/run/demo_20240102-030405/merlin_info/samples.npy");
}

TEST(StudyTokens, StudyNameMayUseVariables) {
  auto spec = parse(with_env("env:\n  variables:\n    N: 7\n", "run_$(N)"));
  auto t = resolve_study_tokens(spec, kOptions);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->study_name, "run_7");
  EXPECT_EQ(t->workspace, "/home/u/run/run_7_20240102-030405");
}

TEST(StudyTokens, WorkspaceOverrideReplacesTheTimestampedName) {
  auto spec = parse(with_env(""));
  auto t = resolve_study_tokens(spec, {"20990101-000000", "/home/u/run", "old/demo_1/", "", ""});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->workspace, "/home/u/run/old/demo_1");
  EXPECT_EQ(t->info_dir, "/home/u/run/old/demo_1/merlin_info");
}

// The validator may refuse such names itself; the token stage must refuse them regardless,
// since a name can also come out of a variable.
spec::StudySpec named(const std::string& name) {
  spec::StudySpec s;
  s.path = "study.yaml";
  s.name = name;
  return s;
}

TEST(StudyTokens, StudyNameWithASlashIsRefused) {
  auto t = resolve_study_tokens(named("a/b"), kOptions);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
  EXPECT_NE(t.error().message.find("study name 'a/b'"), std::string::npos) << t.error().message;
}

TEST(StudyTokens, StudyNameThatLeavesOutputPathIsRefused) {
  for (const char* name : {"..", ".", ""}) {
    auto t = resolve_study_tokens(named(name), kOptions);
    EXPECT_FALSE(t.ok()) << "'" << name << "'";
  }
}

TEST(StudyTokens, StudyNameMadeUnsafeByAVariableIsRefused) {
  spec::StudySpec s = named("$(SUB)");
  s.variables.push_back({"SUB", "../escape", {}});
  auto t = resolve_study_tokens(s, kOptions);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
  EXPECT_NE(t.error().message.find("../escape"), std::string::npos) << t.error().message;
}

TEST(Substitute, ReplacesKnownTokensAndKeepsTheRest) {
  std::map<std::string, std::string> v{{"A", "1"}, {"B.label", "b"}};
  EXPECT_EQ(substitute("x $(A) $(B.label) $(C) $(A)", v), "x 1 b $(C) 1");
  EXPECT_EQ(substitute("no tokens", v), "no tokens");
  EXPECT_EQ(substitute("shell $(date +%s) stays", v), "shell $(date +%s) stays");
}

TEST(Substitute, LookupSeesEachToken) {
  std::vector<std::string> seen;
  auto out = substitute("$(LAUNCHER)[2n, 4p] run $(X)", [&](const spec::TokenRef& t) {
    seen.push_back(t.name);
    return std::optional<std::string>(t.name == "LAUNCHER" ? "srun" : "x");
  });
  EXPECT_EQ(out, "srun run x") << "the bracket belongs to the LAUNCHER token";
  EXPECT_EQ(seen, (std::vector<std::string>{"LAUNCHER", "X"}));
}

}  // namespace
}  // namespace merlin
