// Hostile or broken input: refused with a message, never a crash or a hang.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/unit/spec/spec_test_util.h"

namespace merlin::spec {
namespace {
using testing::errors_of;

TEST(SpecSafety, BillionLaughsAliasBombIsRefused) {
  std::string text = "description: {name: s}\nstudy: [{name: a, run: {cmd: x}}]\nuser:\n";
  text += "  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 10; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    text += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", " : "") + prev;
    text += "]\n";
  }
  std::string err = errors_of(text);
  EXPECT_NE(err.find("90 uses of aliases expand to more than 200000 YAML nodes (the limit for "
                     "nodes copied through aliases), on top of the "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("(an alias bomb?)"), std::string::npos) << err;
}

TEST(SpecSafety, NodeCapIsConfigurable) {
  LoadOptions o;
  o.max_nodes = 10;
  std::string err = errors_of(
      "description: {name: s}\nstudy: [{name: a, run: {cmd: x}}]\n"
      "user: [1, 2, 3, 4, 5, 6, 7, 8, 9]\n",
      o);
  EXPECT_EQ(err,
            "spec.yaml:3:11: the spec has 18 YAML nodes, more than the limit of 10 (keys not "
            "counted); refused");
}

// Issue #9, item 9: a spec of 10^5 steps (no alias anywhere) was refused as "an alias bomb?".
TEST(SpecSafety, LargeSpecWithoutAliasesIsNotCalledABomb) {
  std::string text = "description: {name: s}\nstudy:\n";
  for (int i = 0; i < 300; ++i) text += "  - {name: s" + std::to_string(i) + ", run: {cmd: x}}\n";
  LoadOptions o;
  o.max_nodes = 1000;
  o.max_alias_nodes = 0;
  EXPECT_EQ(errors_of(text, o),
            "spec.yaml:252:5: the spec has 1204 YAML nodes, more than the limit of 1000 (keys "
            "not counted); refused");
}

TEST(SpecSafety, LargeSpecWithAFewAliasesSaysHowManyItHas) {
  std::string text = "description: {name: s}\nuser: {cmd: &c x}\nstudy:\n";
  for (int i = 0; i < 300; ++i)
    text += "  - {name: s" + std::to_string(i) + ", run: {cmd: " + (i < 2 ? "*c" : "x") + "}}\n";
  LoadOptions o;
  o.max_nodes = 1000;
  EXPECT_EQ(errors_of(text, o),
            "spec.yaml:252:23: the spec has 1204 YAML nodes as written and 2 uses of aliases, "
            "which expand to more than the limit of 1000 (keys not counted); refused");
}

TEST(SpecSafety, DefaultLimitsAcceptTenThousandStepsAndHundredsOfAliases) {
  std::string text = "description: {name: s}\nuser:\n  r: &r {cmd: echo, max_retries: 2}\nstudy:\n";
  for (int i = 0; i < 10'000; ++i) text += "  - {name: s" + std::to_string(i) + ", run: *r}\n";
  EXPECT_EQ(errors_of(text), "");
}

// Positions identify nodes met again through an alias: written nodes, nulls and empty values
// included, are never counted as alias copies.
TEST(SpecSafety, SpecsWithoutAliasesExpandNothing) {
  LoadOptions o;
  o.max_alias_nodes = 0;
  EXPECT_EQ(errors_of("description: {name: s, description: }\nenv:\n  variables:\n    A: 1\n"
                      "    B: ''\nstudy:\n  - name: a\n    description:\n    run:\n"
                      "      cmd: |\n        x\n      depends: []\nuser: [[], {}, [[]], '', , ~, "
                      "{a: , b: ~}]\n",
                      o),
            "");
  for (const char* name : {"maestro_plain", "parameters_labels", "samples_column_labels",
                           "workers_args", "env_variables", "restart"}) {
    auto r = load_spec(std::string(MERLIN_SOURCE_DIR) + "/specs/reference/" + name + ".yaml", o);
    EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.error().message);
  }
}

TEST(SpecSafety, SelfReferencingAliasIsRefused) {
  std::string err = errors_of("description: {name: s}\nuser: &a [*a]\n");
  EXPECT_NE(err.find("an alias that contains itself"), std::string::npos) << err;
}

TEST(SpecSafety, DeeplyNestedDocumentIsRefused) {
  std::string err = errors_of(std::string(100000, '['));
  EXPECT_EQ(err, "spec.yaml:1:1: YAML nested too deeply; refused");
  std::string nested =
      "description: {name: s}\nuser: " + std::string(250, '[') + std::string(250, ']') + "\n";
  err = errors_of(nested);
  EXPECT_NE(err.find("YAML nested more than 200 levels deep"), std::string::npos) << err;
}

TEST(SpecSafety, TooLargeTextIsRefused) {
  LoadOptions o;
  o.max_file_bytes = 100;
  EXPECT_EQ(errors_of(std::string(101, '#'), o),
            "spec.yaml: the spec is 101 bytes, more than the limit of 100 bytes; refused");
}

TEST(SpecSafety, TooLargeFileIsRefusedBeforeReading) {
  auto path = std::filesystem::temp_directory_path() / "merlin_spec_safety_big.yaml";
  {
    std::ofstream out(path);
    out << std::string(2048, '#');
  }
  LoadOptions o;
  o.max_file_bytes = 1024;
  auto r = load_spec(path.string(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, path.string() +
                                   ": the spec is 2048 bytes, more than the limit of 1024 bytes; "
                                   "refused");
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  std::filesystem::remove(path);
}

TEST(SpecSafety, MissingFileAndDirectoryAreErrors) {
  auto r = load_spec("/nonexistent/merlin/core/spec.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(r.error().message, "/nonexistent/merlin/core/spec.yaml: cannot read the spec: no such file");
  auto d = load_spec(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, ErrorCode::kBadInput);
  EXPECT_NE(d.error().message.find("not a regular file"), std::string::npos);
}

TEST(SpecSafety, BinaryFileIsRefused) {
  std::string bytes(
      "\x7f"
      "ELF\x02\x01\x01\x00\x00\x00garbage",
      17);
  EXPECT_EQ(errors_of(bytes), "spec.yaml: not a text file (a NUL byte at offset 7); refused");
  std::string high("\xff\xfe\xfd\x80 \x81\x82", 7);
  EXPECT_FALSE(errors_of(high).empty());
}

TEST(SpecSafety, EmptyAndNonMapDocumentsAreErrors) {
  EXPECT_EQ(errors_of(""),
            "spec.yaml: the spec is empty; expected a map of blocks (description, study, ...)");
  EXPECT_EQ(errors_of("# only a comment\n"),
            "spec.yaml: the spec is empty; expected a map of blocks (description, study, ...)");
  EXPECT_EQ(errors_of("just a string\n"),
            "spec.yaml:1:1: a spec must be a map of blocks (description, study, ...), got 'just a "
            "string'");
  EXPECT_EQ(errors_of("- a\n- b\n"),
            "spec.yaml:1:1: a spec must be a map of blocks (description, study, ...), got a list");
}

TEST(SpecSafety, SyntaxErrorsCarryTheirLocation) {
  EXPECT_EQ(errors_of("description:\n\tname: x\n"),
            "spec.yaml:2:6: YAML syntax error: illegal map value (YAML does not allow tabs for "
            "indentation)");
  EXPECT_EQ(errors_of("a: *nope\n"),
            "spec.yaml:1:4: YAML syntax error: the referenced anchor is not defined");
  EXPECT_FALSE(errors_of("description: {name: 'unclosed\nstudy: []\n").empty());
  EXPECT_FALSE(errors_of("description: [\n").empty());
  EXPECT_FALSE(errors_of("{{{{}}}}: ]]]\n").empty());
}

TEST(SpecSafety, ComplexMapKeysAreErrorsNotCrashes) {
  EXPECT_NE(errors_of("? [a, b]\n: c\n").find("map keys must be plain strings"), std::string::npos);
}

TEST(SpecSafety, DuplicateKeyKeepsTheLastValueWithAWarning) {
  auto r = parse_spec(
      "description: {name: a}\ndescription: {name: b}\nstudy: [{name: s, run: {cmd: x}}]\n",
      "spec.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->spec.name, "b");
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].str(),
            "spec.yaml:2:1: warning: duplicate key 'description' (first at line 1); the last value "
            "is used");
}

TEST(SpecSafety, RandomGarbageNeverCrashes) {
  // A cheap deterministic fuzz: mutate a valid spec byte by byte.
  const std::string base =
      "description: {name: s}\nenv: {variables: {A: 1}}\nstudy:\n  - name: a\n    run:\n"
      "      cmd: echo $(A)\n      depends: [b_*]\n  - name: b\n    run: {cmd: x}\n";
  const char kBytes[] = {'[', ']', '{', '}', ':', '-', '&', '*', '\t', '\n', '"', '\'', '|',
                         '>', '!', '%', '@', '`', '#', '?', ',', ' ',  '<',  '$', '('};
  unsigned seed = 12345;
  for (int i = 0; i < 3000; ++i) {
    std::string text = base;
    for (int k = 0; k < 3; ++k) {
      seed = seed * 1103515245u + 12345u;
      std::size_t pos = (seed >> 8) % text.size();
      seed = seed * 1103515245u + 12345u;
      text[pos] = kBytes[(seed >> 8) % sizeof(kBytes)];
    }
    (void)parse_spec(text, "fuzz.yaml");
  }
  SUCCEED();
}

}  // namespace
}  // namespace merlin::spec
