// A step's `tune:` block (docs/tuning.md): read into TuneSpec, and each problem with its
// message and line:col.
#include <gtest/gtest.h>

#include <string>

#include "tests/unit/spec/spec_test_util.h"

namespace merlin::spec {
namespace {
using testing::errors_of;
using testing::parse_ok;

// A spec whose step 't' has `cmd` on line 5 and the lines of `tune` from line 7 (keys at
// column 9).
std::string tune_spec(const std::string& tune, const std::string& cmd = "run $(LR) $(EPOCHS)") {
  return "description: {name: s}\nstudy:\n  - name: t\n    run:\n      cmd: \"" + cmd +
         "\"\n      tune:\n" + tune;
}

// Every warning of a spec that loads, one per line.
std::string warnings_of(const std::string& text) {
  auto r = parse_spec(text, "spec.yaml");
  if (!r.ok()) return "error: " + r.error().message;
  std::string out;
  for (const auto& w : r->warnings) out += (out.empty() ? "" : "\n") + w.str();
  return out;
}

const char* kBasic =
    "        trials: 4\n"
    "        space: {LR: {log_uniform: [1.0e-4, 1.0e-1]}}\n"
    "        budget: {token: EPOCHS, max: 9}\n"
    "        metric: {file: m.jsonl}\n";

TEST(TuneSpec, ReadsEveryKindAndKey) {
  auto loaded = parse_ok(R"Y(description: {name: s}
study:
  - name: train
    run:
      cmd: "train $(LR) $(WIDTH) $(X) $(ACT) $(EPOCHS) $(TRIAL_DIR) $(MERLIN_TRIAL) $(MERLIN_RUNG)"
      tune:
        method: hyperband
        trials: 32
        seed: 7
        space:
          LR: {log_uniform: [1.0e-4, 1.0e-1]}
          WIDTH: {integer: [8, 64]}
          X: {uniform: [-1, +1.5]}
          ACT: {choice: [relu, tanh, 0.50]}
        budget: {token: EPOCHS, min: 1, max: 27, eta: 2.5}
        metric: {file: "$(TRIAL_DIR)/metrics.jsonl", key: loss, mode: max}
        brackets: 3
)Y");
  EXPECT_TRUE(loaded.warnings.empty());
  ASSERT_EQ(loaded.spec.steps.size(), 1u);
  const StepRun& run = loaded.spec.steps[0].run;
  ASSERT_TRUE(run.tune.has_value());
  const TuneSpec& t = *run.tune;
  EXPECT_EQ(t.method, TuneMethod::kHyperband);
  EXPECT_EQ(t.trials, 32u);
  EXPECT_EQ(t.seed, 7u);
  EXPECT_EQ(t.brackets, 3u);
  EXPECT_EQ(t.where.line, 6);
  EXPECT_EQ(t.where.column, 7);
  ASSERT_EQ(t.space.size(), 4u);
  EXPECT_EQ(t.space[0].name, "LR");
  EXPECT_EQ(t.space[0].kind, TuneDimension::Kind::kLogUniform);
  EXPECT_DOUBLE_EQ(t.space[0].low, 1.0e-4);
  EXPECT_DOUBLE_EQ(t.space[0].high, 1.0e-1);
  EXPECT_EQ(t.space[0].where.line, 11);
  EXPECT_EQ(t.space[0].where.column, 11);
  EXPECT_EQ(t.space[1].name, "WIDTH");
  EXPECT_EQ(t.space[1].kind, TuneDimension::Kind::kInteger);
  EXPECT_EQ(t.space[1].low, 8);
  EXPECT_EQ(t.space[1].high, 64);
  EXPECT_EQ(t.space[2].name, "X");
  EXPECT_EQ(t.space[2].kind, TuneDimension::Kind::kUniform);
  EXPECT_EQ(t.space[2].low, -1);
  EXPECT_EQ(t.space[2].high, 1.5);
  EXPECT_EQ(t.space[3].name, "ACT");
  EXPECT_EQ(t.space[3].kind, TuneDimension::Kind::kChoice);
  EXPECT_EQ(t.space[3].choices, (std::vector<std::string>{"relu", "tanh", "0.50"}));
  ASSERT_TRUE(t.budget.has_value());
  EXPECT_EQ(t.budget->token, "EPOCHS");
  EXPECT_EQ(t.budget->min, 1);
  EXPECT_EQ(t.budget->max, 27);
  EXPECT_EQ(t.budget->eta, 2.5);
  EXPECT_EQ(t.budget->where.line, 15);
  EXPECT_EQ(t.metric.file.value, "$(TRIAL_DIR)/metrics.jsonl");
  EXPECT_EQ(t.metric.file.where.line, 16);
  EXPECT_EQ(t.metric.key, "loss");
  EXPECT_TRUE(t.metric.maximize);
  EXPECT_EQ(t.metric.where.line, 16);
}

TEST(TuneSpec, Defaults) {
  auto loaded = parse_ok(tune_spec(kBasic));
  const TuneSpec& t = *loaded.spec.steps[0].run.tune;
  EXPECT_EQ(t.method, TuneMethod::kAsha);
  EXPECT_EQ(t.trials, 4u);
  EXPECT_EQ(t.seed, 0u);
  EXPECT_EQ(t.brackets, 0u);
  ASSERT_TRUE(t.budget.has_value());
  EXPECT_EQ(t.budget->min, 1);
  EXPECT_EQ(t.budget->max, 9);
  EXPECT_EQ(t.budget->eta, 3);
  EXPECT_EQ(t.metric.key, "value");
  EXPECT_FALSE(t.metric.maximize);
  EXPECT_TRUE(loaded.warnings.empty());
  // A step without `tune` has none.
  auto plain = parse_ok("description: {name: s}\nstudy: [{name: a, run: {cmd: x}}]\n");
  EXPECT_FALSE(plain.spec.steps[0].run.tune.has_value());
}

TEST(TuneSpec, RandomAndSobolNeedNoBudget) {
  for (const char* method : {"random", "sobol"}) {
    auto loaded = parse_ok(tune_spec(std::string("        method: ") + method +
                                         "\n        trials: 1000000\n"
                                         "        space: {LR: {uniform: [0, 1]}}\n"
                                         "        metric: {file: m.jsonl}\n",
                                     "run $(LR)"));
    const TuneSpec& t = *loaded.spec.steps[0].run.tune;
    EXPECT_EQ(t.method, std::string(method) == "random" ? TuneMethod::kRandom : TuneMethod::kSobol);
    EXPECT_EQ(t.trials, 1000000u);
    EXPECT_FALSE(t.budget.has_value());
    EXPECT_TRUE(loaded.warnings.empty());
  }
}

TEST(TuneSpec, EmptyAndMissingRequiredKeys) {
  EXPECT_EQ(errors_of("description: {name: s}\nstudy:\n  - name: t\n    run:\n      cmd: x\n"
                      "      tune:\n"),
            "spec.yaml:6:7: 'tune' in step 't' is empty (it needs 'trials', 'space' and 'metric')");
  EXPECT_EQ(errors_of(tune_spec("        method: random\n", "x")),
            "spec.yaml:7:9: missing required key 'trials' in 'tune' in step 't' (how many "
            "configurations to try)\n"
            "spec.yaml:7:9: missing required key 'space' in 'tune' in step 't' (the tokens to "
            "search, e.g. 'LR: {log_uniform: [1.0e-4, 1.0e-1]}')\n"
            "spec.yaml:7:9: missing required key 'metric' in 'tune' in step 't' (where a trial "
            "writes its result, e.g. '{file: metrics.jsonl}')");
}

TEST(TuneSpec, UnknownKeysSuggestTheNearKey) {
  EXPECT_EQ(errors_of(tune_spec("        trials: 4\n"
                                "        seeed: 1\n"
                                "        space: {LR: {log_unifrom: [1, 2]}}\n"
                                "        budget: {token: EPOCHS, max: 9, etaa: 2}\n"
                                "        metric: {file: m.jsonl, mod: max}\n")),
            "spec.yaml:8:9: unknown key 'seeed' in 'tune' in step 't' (did you mean 'seed'?)\n"
            "spec.yaml:9:22: unknown key 'log_unifrom' in dimension 'LR' of 'space' of 'tune' in "
            "step 't' (did you mean 'log_uniform'?)\n"
            "spec.yaml:10:41: unknown key 'etaa' in 'budget' of 'tune' in step 't' (did you mean "
            "'eta'?)\n"
            "spec.yaml:11:33: unknown key 'mod' in 'metric' of 'tune' in step 't' (did you mean "
            "'mode'?)");
}

TEST(TuneSpec, MethodAndModeMustBeKnown) {
  EXPECT_EQ(errors_of(tune_spec("        method: ashaa\n" + std::string(kBasic))),
            "spec.yaml:7:17: 'method' of 'tune' in step 't' is 'ashaa'; it is one of random, "
            "sobol, asha (the default), hyperband (did you mean 'asha'?)");
  EXPECT_EQ(errors_of(tune_spec("        trials: 4\n"
                                "        space: {LR: {uniform: [0, 1]}}\n"
                                "        budget: {token: EPOCHS, max: 9}\n"
                                "        metric: {file: m.jsonl, mode: maximum}\n")),
            "spec.yaml:10:39: 'mode' of 'metric' of 'tune' in step 't' is 'maximum'; it is 'min' "
            "(the default: smaller is better) or 'max' (did you mean 'max'?)");
}

TEST(TuneSpec, DimensionsHaveExactlyOneKind) {
  EXPECT_EQ(errors_of(tune_spec("        trials: 4\n"
                                "        space:\n"
                                "          LR: {uniform: [0, 1], integer: [0, 1]}\n"
                                "          A: {}\n"
                                "          B:\n"
                                "          C: [0, 1]\n"
                                "          D: {normal: [0, 1]}\n"
                                "        budget: {token: EPOCHS, max: 9}\n"
                                "        metric: {file: m.jsonl}\n",
                                "run $(LR) $(A) $(B) $(C) $(D) $(EPOCHS)")),
            "spec.yaml:9:33: dimension 'LR' of 'space' of 'tune' in step 't' has both 'uniform' "
            "and 'integer'; a dimension is exactly one of uniform, log_uniform, integer, choice\n"
            "spec.yaml:10:14: dimension 'A' of 'space' of 'tune' in step 't' needs one of "
            "uniform, log_uniform, integer, choice\n"
            "spec.yaml:11:11: dimension 'B' of 'space' of 'tune' in step 't' is empty; give one "
            "of {uniform: [lo, hi]}, {log_uniform: [lo, hi]}, {integer: [lo, hi]}, {choice: [a, "
            "b, ...]}\n"
            "spec.yaml:12:14: dimension 'C' of 'space' of 'tune' in step 't' must be a map, got a "
            "list\n"
            "spec.yaml:13:14: dimension 'D' of 'space' of 'tune' in step 't' needs one of "
            "uniform, log_uniform, integer, choice\n"
            "spec.yaml:13:15: unknown key 'normal' in dimension 'D' of 'space' of 'tune' in step "
            "'t'");
}

TEST(TuneSpec, RangesAndChoices) {
  EXPECT_EQ(
      errors_of(tune_spec("        trials: 4\n"
                          "        space:\n"
                          "          A: {uniform: [1, 1]}\n"
                          "          B: {log_uniform: [0, 1]}\n"
                          "          C: {log_uniform: [2, 1]}\n"
                          "          D: {integer: [8.5, 64]}\n"
                          "          E: {integer: [9, 8]}\n"
                          "          F: {uniform: [0, .inf]}\n"
                          "          G: {uniform: [0, nan]}\n"
                          "          H: {uniform: [a, 1]}\n"
                          "          I: {uniform: [0, 1, 2]}\n"
                          "          J: {choice: []}\n"
                          "          K: {choice: [[1], 2]}\n"
                          "          L: {uniform: 3}\n"
                          "        metric: {file: m.jsonl}\n"
                          "        method: random\n",
                          "$(A)$(B)$(C)$(D)$(E)$(F)$(G)$(H)$(I)$(J)$(K)$(L)")),
      "spec.yaml:9:24: 'uniform' of dimension 'A' of 'space' of 'tune' in step 't' is [1, 1]; "
      "the low end must be below the high end\n"
      "spec.yaml:10:29: 'log_uniform' of dimension 'B' of 'space' of 'tune' in step 't' starts "
      "at 0; a log-uniform range must be above 0\n"
      "spec.yaml:11:28: 'log_uniform' of dimension 'C' of 'space' of 'tune' in step 't' is [2, "
      "1]; the low end must be below the high end\n"
      "spec.yaml:12:25: 'integer' of dimension 'D' of 'space' of 'tune' in step 't' must hold "
      "whole numbers, got '8.5'\n"
      "spec.yaml:13:24: 'integer' of dimension 'E' of 'space' of 'tune' in step 't' is [9, 8]; "
      "the low end must not be above the high end\n"
      "spec.yaml:14:28: the high end of 'uniform' of dimension 'F' of 'space' of 'tune' in step "
      "'t' must be a number, got '.inf'\n"
      "spec.yaml:15:28: the high end of 'uniform' of dimension 'G' of 'space' of 'tune' in step "
      "'t' must be a finite number, got 'nan'\n"
      "spec.yaml:16:25: the low end of 'uniform' of dimension 'H' of 'space' of 'tune' in step "
      "'t' must be a number, got 'a'\n"
      "spec.yaml:17:24: 'uniform' of dimension 'I' of 'space' of 'tune' in step 't' must be a "
      "list of two numbers [low, high], got a list of 3\n"
      "spec.yaml:18:23: 'choice' of dimension 'J' of 'space' of 'tune' in step 't' is empty; "
      "give a list of values\n"
      "spec.yaml:19:24: items of 'choice' of dimension 'K' of 'space' of 'tune' in step 't' "
      "must be single values, got a list\n"
      "spec.yaml:20:24: 'uniform' of dimension 'L' of 'space' of 'tune' in step 't' must be a "
      "list of two numbers [low, high], got '3'");
}

TEST(TuneSpec, SpaceMustHoldADimension) {
  const std::string tail = "        metric: {file: m.jsonl}\n        method: random\n";
  EXPECT_EQ(errors_of(tune_spec("        trials: 4\n        space: {}\n" + tail, "x")),
            "spec.yaml:8:9: 'space' of 'tune' in step 't' is empty; give at least one dimension, "
            "e.g. 'LR: {log_uniform: [1.0e-4, 1.0e-1]}'");
  EXPECT_EQ(errors_of(tune_spec("        trials: 4\n        space:\n" + tail, "x")),
            "spec.yaml:8:9: 'space' of 'tune' in step 't' is empty; give at least one dimension, "
            "e.g. 'LR: {log_uniform: [1.0e-4, 1.0e-1]}'");
  EXPECT_EQ(errors_of(tune_spec("        trials: 4\n        space: [LR]\n" + tail, "x")),
            "spec.yaml:8:16: 'space' of 'tune' in step 't' must be a map, got a list");
}

TEST(TuneSpec, SpaceNamesAreTokenNamesNotReservedNorEnvironmentNames) {
  EXPECT_EQ(errors_of(tune_spec("        trials: 4\n"
                                "        space:\n"
                                "          \"A B\": {uniform: [0, 1]}\n"
                                "          TRIAL_DIR: {uniform: [0, 1]}\n"
                                "          MERLIN_RUNG: {uniform: [0, 1]}\n"
                                "          SPECROOT: {uniform: [0, 1]}\n"
                                "          PATH: {uniform: [0, 1]}\n"
                                "        metric: {file: m.jsonl}\n"
                                "        method: random\n",
                                "$(TRIAL_DIR) $(MERLIN_RUNG) $(SPECROOT) $(PATH)")),
            "spec.yaml:9:11: dimension 'A B' of 'space' of 'tune' in step 't' cannot be used as "
            "$(A B): names may only hold letters, digits, '_', '-' and '.'\n"
            "spec.yaml:10:11: dimension 'TRIAL_DIR' of 'space' of 'tune' in step 't' redefines a "
            "name Merlin reserves\n"
            "spec.yaml:11:11: dimension 'MERLIN_RUNG' of 'space' of 'tune' in step 't' redefines "
            "a name Merlin reserves\n"
            "spec.yaml:12:11: dimension 'SPECROOT' of 'space' of 'tune' in step 't' redefines a "
            "name Merlin reserves\n"
            "spec.yaml:13:11: dimension 'PATH' of 'space' of 'tune' in step 't' would set the "
            "step's environment variable PATH, which is read by the shell; rename it");
}

// The YAML reader keeps the last of two equal keys, with its warning: names stay unique.
TEST(TuneSpec, ARepeatedSpaceNameKeepsTheLast) {
  auto loaded =
      parse_ok(tune_spec("        trials: 4\n"
                         "        space:\n"
                         "          LR: {uniform: [0, 1]}\n"
                         "          LR: {uniform: [0, 2]}\n"
                         "        metric: {file: m.jsonl}\n"
                         "        method: random\n",
                         "$(LR)"));
  const TuneSpec& t = *loaded.spec.steps[0].run.tune;
  ASSERT_EQ(t.space.size(), 1u);
  EXPECT_EQ(t.space[0].high, 2);
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_EQ(loaded.warnings[0].str(),
            "spec.yaml:10:11: warning: duplicate key 'LR' (first at line 9); the last value is "
            "used");
}

TEST(TuneSpec, TrialsSeedAndBrackets) {
  const std::string rest =
      "        space: {LR: {uniform: [0, 1]}}\n"
      "        metric: {file: m.jsonl}\n";
  EXPECT_EQ(errors_of(tune_spec(
                "        method: random\n        trials: 0\n        seed: -1\n" + rest, "$(LR)")),
            "spec.yaml:8:17: 'trials' of 'tune' in step 't' must be at least 1, got '0'\n"
            "spec.yaml:9:15: 'seed' of 'tune' in step 't' must be a whole number >= 0, got '-1'");
  EXPECT_EQ(
      errors_of(tune_spec("        method: random\n        trials: 1000001\n" + rest, "$(LR)")),
      "spec.yaml:8:17: 'trials' of 'tune' in step 't' is 1000001, more than 1000000; "
      "refused (a study of that many trials is not a tuning run)");
  EXPECT_EQ(
      errors_of(tune_spec(
          "        method: random\n        trials: 99999999999999999999999\n" + rest, "$(LR)")),
      "spec.yaml:8:17: 'trials' of 'tune' in step 't' is '99999999999999999999999', more "
      "than 1000000; refused (a study of that many trials is not a tuning run)");
  EXPECT_EQ(errors_of(tune_spec("        method: random\n        trials: 2.5\n" + rest, "$(LR)")),
            "spec.yaml:8:17: 'trials' of 'tune' in step 't' must be a whole number >= 1, got "
            "'2.5'");
  EXPECT_EQ(
      errors_of(tune_spec("        method: random\n        trials: 4\n        brackets: 2\n" + rest,
                          "$(LR)")),
      "spec.yaml:9:9: 'brackets' of 'tune' in step 't' is for method 'hyperband' only; "
      "this tune uses 'random'");
  EXPECT_EQ(errors_of(tune_spec(std::string(kBasic) + "        brackets: 2\n")),
            "spec.yaml:11:9: 'brackets' of 'tune' in step 't' is for method 'hyperband' only; "
            "this tune uses 'asha' (the default)");
  EXPECT_EQ(errors_of(tune_spec(std::string(kBasic) +
                                "        method: hyperband\n        brackets: 0\n")),
            "spec.yaml:12:19: 'brackets' of 'tune' in step 't' must be at least 1, got '0'");
  auto loaded = parse_ok(tune_spec(std::string(kBasic) + "        seed: 18446744073709551615\n"));
  EXPECT_EQ(loaded.spec.steps[0].run.tune->seed, 18446744073709551615u);
}

TEST(TuneSpec, Prune) {
  auto every = [](const std::string& extra) {
    return parse_ok(tune_spec(std::string(kBasic) + extra)).spec.steps[0].run.tune->prune_every;
  };
  EXPECT_EQ(every(""), 0.0);  // off unless asked for
  EXPECT_EQ(every("        prune: true\n"), 1.0);
  EXPECT_EQ(every("        prune: false\n"), 0.0);
  EXPECT_EQ(every("        prune: 2.5\n"), 2.5);
  const std::string random =
      "        method: random\n        trials: 4\n        space: {LR: {uniform: [0, 1]}}\n"
      "        metric: {file: m.jsonl}\n";
  EXPECT_EQ(parse_ok(tune_spec(random, "$(LR)")).spec.steps[0].run.tune->prune_every, 0.0);
  EXPECT_EQ(parse_ok(tune_spec(random + "        prune: false\n", "$(LR)"))
                .spec.steps[0]
                .run.tune->prune_every,
            0.0);
  EXPECT_EQ(errors_of(tune_spec(random + "        prune: true\n", "$(LR)")),
            "spec.yaml:11:9: 'prune' of 'tune' in step 't' is for methods 'asha' and "
            "'hyperband', which compare trials at each rung; this tune uses 'random'");
  EXPECT_EQ(errors_of(tune_spec(std::string(kBasic) + "        prune: 0\n")),
            "spec.yaml:11:16: 'prune' of 'tune' in step 't' is 0 seconds; give 0.1 to 3600, or "
            "false to never prune");
  EXPECT_EQ(errors_of(tune_spec(std::string(kBasic) + "        prune: often\n")),
            "spec.yaml:11:16: 'prune' of 'tune' in step 't' (true, false or the seconds between "
            "checks) must be a number, got 'often'");
  EXPECT_EQ(errors_of(tune_spec(std::string(kBasic) + "        prune:\n")),
            "spec.yaml:11:9: 'prune' of 'tune' in step 't' is empty; give true, false or the "
            "seconds between checks");
}

TEST(TuneSpec, AshaAndHyperbandNeedABudget) {
  const std::string rest =
      "        trials: 4\n"
      "        space: {LR: {uniform: [0, 1]}}\n"
      "        metric: {file: m.jsonl}\n";
  EXPECT_EQ(errors_of(tune_spec(rest, "$(LR)")),
            "spec.yaml:6:7: 'tune' in step 't' uses method 'asha', which promotes trials to "
            "larger budgets: add 'budget:' (e.g. '{token: EPOCHS, min: 1, max: 27, eta: 3}'), or "
            "use method 'random' or 'sobol'");
  EXPECT_EQ(errors_of(tune_spec("        method: hyperband\n" + rest, "$(LR)")),
            "spec.yaml:6:7: 'tune' in step 't' uses method 'hyperband', which promotes trials to "
            "larger budgets: add 'budget:' (e.g. '{token: EPOCHS, min: 1, max: 27, eta: 3}'), or "
            "use method 'random' or 'sobol'");
}

TEST(TuneSpec, BudgetChecks) {
  auto with_budget = [](const std::string& budget, const std::string& cmd = "run $(LR) $(EPOCHS)") {
    return errors_of(
        tune_spec("        trials: 4\n"
                  "        space: {LR: {uniform: [0, 1]}}\n"
                  "        metric: {file: m.jsonl}\n"
                  "        budget: " +
                      budget + "\n",
                  cmd));
  };
  EXPECT_EQ(with_budget("{token: EPOCHS, min: 0, max: 9, eta: 1}"),
            "spec.yaml:10:38: 'min' of 'budget' of 'tune' in step 't' must be above 0, got '0'\n"
            "spec.yaml:10:54: 'eta' of 'budget' of 'tune' in step 't' must be above 1, got '1' "
            "(each rung keeps 1/eta of the trials)");
  EXPECT_EQ(with_budget("{token: EPOCHS, min: 10, max: 9}"),
            "spec.yaml:10:47: 'max' of 'budget' of 'tune' in step 't' is 9, below 'min' (10)");
  EXPECT_EQ(with_budget("{token: EPOCHS, min: 1, max: inf}"),
            "spec.yaml:10:46: 'max' of 'budget' of 'tune' in step 't' must be a finite number, "
            "got 'inf'");
  EXPECT_EQ(with_budget("{min: 1}", "run $(LR)"),
            "spec.yaml:10:17: missing required key 'token' in 'budget' of 'tune' in step 't' (the "
            "token that carries a trial's budget, e.g. EPOCHS)\n"
            "spec.yaml:10:17: missing required key 'max' in 'budget' of 'tune' in step 't' (the "
            "largest budget a trial gets)");
  EXPECT_EQ(with_budget("{token: \"E POCHS\", max: 9}", "run $(LR)"),
            "spec.yaml:10:25: budget token 'E POCHS' of 'tune' in step 't' cannot be used as "
            "$(E POCHS): names may only hold letters, digits, '_', '-' and '.'");
  EXPECT_EQ(with_budget("{token: MERLIN_TRIAL, max: 9}", "run $(LR) $(MERLIN_TRIAL)"),
            "spec.yaml:10:25: budget token 'MERLIN_TRIAL' of 'tune' in step 't' redefines a name "
            "Merlin reserves");
  EXPECT_EQ(with_budget("", "run $(LR)"),
            "spec.yaml:10:9: 'budget' of 'tune' in step 't' is empty (it needs "
            "'token' and 'max')");
}

TEST(TuneSpec, MetricChecks) {
  auto with_metric = [](const std::string& metric) {
    return errors_of(
        tune_spec("        trials: 4\n"
                  "        space: {LR: {uniform: [0, 1]}}\n"
                  "        budget: {token: EPOCHS, max: 9}\n"
                  "        metric: " +
                  metric + "\n"));
  };
  EXPECT_EQ(with_metric("{key: loss}"),
            "spec.yaml:10:17: missing required key 'file' in 'metric' of 'tune' in step 't' (the "
            "file each trial appends its results to)");
  EXPECT_EQ(with_metric("{file: \"\", key: \"\"}"),
            "spec.yaml:10:24: 'file' of 'metric' of 'tune' in step 't' is empty\n"
            "spec.yaml:10:33: 'key' of 'metric' of 'tune' in step 't' is empty");
  EXPECT_EQ(with_metric(""),
            "spec.yaml:10:9: 'metric' of 'tune' in step 't' is empty (it needs "
            "'file')");
}

TEST(TuneSpec, NotWithSamplesFromOrLoop) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study:
  - name: a
    run: {cmd: x}
  - name: t
    run:
      cmd: "run $(LR) $(EPOCHS)"
      depends: [a]
      samples_from: {file: rows.csv, column_labels: [R]}
      loop: {back_to: t, max_iterations: 3}
      tune:
        trials: 4
        space: {LR: {uniform: [0, 1]}}
        budget: {token: EPOCHS, max: 9}
        metric: {file: m.jsonl}
)Y"),
            "spec.yaml:9:7: 'samples_from' in step 't' cannot be used with 'tune': a tune step's "
            "tasks are its trials (docs/tuning.md)\n"
            "spec.yaml:10:7: 'loop' in step 't' cannot be used with 'tune': a tune step's tasks "
            "are its trials (docs/tuning.md)");
}

TEST(TuneSpec, NamesClashWithNoOtherName) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
env:
  variables: {V: 1}
  labels: {L: l}
study:
  - name: t
    run:
      cmd: "run $(P) $(P.label) $(V) $(L) $(C) $(EPOCHS)"
      tune:
        trials: 4
        space:
          P: {uniform: [0, 1]}
          P.label: {uniform: [0, 1]}
          V: {uniform: [0, 1]}
          L: {uniform: [0, 1]}
          C: {uniform: [0, 1]}
          EPOCHS: {uniform: [0, 1]}
        budget: {token: V, max: 9}
        metric: {file: m.jsonl}
global.parameters: {P: {values: [1]}}
merlin: {samples: {column_labels: [C], file: f.csv}}
)Y"),
            "spec.yaml:12:11: space name 'P' of the tune in step 't' clashes with parameter 'P'; "
            "rename the dimension\n"
            "spec.yaml:13:11: space name 'P.label' of the tune in step 't' clashes with the label "
            "token of parameter 'P'; rename the dimension\n"
            "spec.yaml:14:11: space name 'V' of the tune in step 't' clashes with variable 'V'; "
            "rename the dimension\n"
            "spec.yaml:14:11: space name 'V' of the tune in step 't' is also the budget token; "
            "rename one of them\n"
            "spec.yaml:15:11: space name 'L' of the tune in step 't' clashes with label 'L'; "
            "rename the dimension\n"
            "spec.yaml:16:11: space name 'C' of the tune in step 't' clashes with sample column "
            "label 'C'; rename the dimension\n"
            "spec.yaml:18:9: budget token 'V' of the tune in step 't' clashes with variable 'V'; "
            "rename the token");
}

TEST(TuneSpec, ATrialIsNotASample) {
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study:
  - name: t
    run:
      cmd: |
        run $(LR) $(EPOCHS)
        echo $(MERLIN_SAMPLE_ID) $(C) $(MERLIN_SAMPLE_PATH)
      restart: "echo $(MERLIN_SAMPLE_VECTOR)"
      tune:
        trials: 4
        space: {LR: {uniform: [0, 1]}}
        budget: {token: EPOCHS, max: 9}
        metric: {file: m.jsonl}
merlin: {samples: {column_labels: [C], file: f.csv}}
)Y"),
            "spec.yaml:7:14: '$(MERLIN_SAMPLE_ID)' in 'cmd' of step 't' is a sample token, but "
            "step 't' is a tune step: a trial is not a sample, and a tune step runs once per "
            "trial, not per sample (its configuration is the tokens of 'space')\n"
            "spec.yaml:7:34: '$(C)' in 'cmd' of step 't' is a column of the study's samples, but "
            "step 't' is a tune step: a trial is not a sample, and a tune step runs once per "
            "trial, not per sample (its configuration is the tokens of 'space')\n"
            "spec.yaml:7:39: '$(MERLIN_SAMPLE_PATH)' in 'cmd' of step 't' is a sample token, but "
            "step 't' is a tune step: a trial is not a sample, and a tune step runs once per "
            "trial, not per sample (its configuration is the tokens of 'space')\n"
            "spec.yaml:8:22: '$(MERLIN_SAMPLE_VECTOR)' in 'restart' of step 't' is a sample "
            "token, but step 't' is a tune step: a trial is not a sample, and a tune step runs "
            "once per trial, not per sample (its configuration is the tokens of 'space')");
}

TEST(TuneSpec, WarnsWhenTheCommandIgnoresABudgetOrADimension) {
  EXPECT_EQ(warnings_of(tune_spec("        trials: 4\n"
                                  "        space:\n"
                                  "          LR: {uniform: [0, 1]}\n"
                                  "          WD: {uniform: [0, 1]}\n"
                                  "        budget: {token: EPOCHS, max: 9}\n"
                                  "        metric: {file: m.jsonl}\n",
                                  "run $(LR)")),
            "spec.yaml:10:11: warning: space name 'WD' of the tune in step 't' is not used by "
            "its 'cmd' (no $(WD)): the trials would ignore it\n"
            "spec.yaml:11:9: warning: the budget token of the tune in step 't' is not used by "
            "its 'cmd' (no $(EPOCHS)): the trials would ignore their budget");
}

TEST(TuneSpec, TrialTokensAreKnownOnlyInTheTuneStep) {
  auto loaded = parse_ok(R"Y(description: {name: s}
study:
  - name: t
    run:
      cmd: "run $(LR) $(EPOCHS) $(TRIAL_DIR) $(MERLIN_TRIAL) $(MERLIN_RUNG)"
      tune:
        trials: 4
        space: {LR: {uniform: [0, 1]}}
        budget: {token: EPOCHS, max: 9}
        metric: {file: "$(TRIAL_DIR)/m.jsonl"}
  - name: u
    run: {cmd: "use $(LR) $(TRIAL_DIR)", depends: [t]}
)Y");
  std::string w;
  for (const auto& d : loaded.warnings) w += d.str() + "\n";
  EXPECT_EQ(w,
            "spec.yaml:12:21: warning: unknown token '$(LR)' in 'cmd' of step 'u'; it is left as "
            "written, for the shell (an error with `validate --strict`)\n"
            "spec.yaml:12:27: warning: unknown token '$(TRIAL_DIR)' in 'cmd' of step 'u'; it is "
            "left as written, for the shell (an error with `validate --strict`)\n");
  // In strict mode the tune step's own tokens are still known; the other step's are errors.
  LoadOptions strict;
  strict.strict_tokens = true;
  EXPECT_EQ(errors_of(R"Y(description: {name: s}
study:
  - name: t
    run:
      cmd: "run $(LR) $(EPOCHS) $(TRIAL_DIR) $(MERLIN_TRIAL) $(MERLIN_RUNG)"
      tune:
        trials: 4
        space: {LR: {uniform: [0, 1]}}
        budget: {token: EPOCHS, max: 9}
        metric: {file: "$(TRIAL_DIR)/$(NOPE).jsonl"}
  - name: u
    run: {cmd: "echo $(MERLIN_RUNG)"}
)Y",
                      strict),
            "spec.yaml:10:38: unknown token '$(NOPE)' in 'metric.file' of the tune in step 't'\n"
            "spec.yaml:12:22: unknown token '$(MERLIN_RUNG)' in 'cmd' of step 'u'");
}

}  // namespace
}  // namespace merlin::spec
