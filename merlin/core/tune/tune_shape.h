#pragma once
/// The shape of a tuned step's search (docs/tuning.md): how many trials, the rungs' budgets,
/// the brackets, and how a task id names a (trial, rung). A tuned instance's tasks are
/// `rungs × trials` ids, rung-major: task = rung * trials + trial, so rung 0 is [0, trials).
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/spec/study_spec.h"
#include "merlin/core/util/result.h"

namespace merlin::tune {

struct TuneShape {
  std::uint32_t trials = 1;
  std::uint32_t rungs = 1;
  double eta = 3;
  bool maximize = false;
  /// Per rung, the budget a task of that rung trains to (the last is `budget.max`); empty
  /// when the step has no budget (random or sobol without one).
  std::vector<double> budgets;
  /// The first trial of each bracket, ascending, starting at 0; bracket b starts at rung b
  /// (hyperband). ASHA, random and sobol have one bracket.
  std::vector<std::uint32_t> bracket_first{0};

  std::uint64_t tasks() const { return std::uint64_t{trials} * rungs; }
  std::uint64_t task(std::uint32_t trial, std::uint32_t rung) const {
    return std::uint64_t{rung} * trials + trial;
  }
  std::uint32_t trial_of(std::uint64_t task) const {
    return static_cast<std::uint32_t>(task % trials);
  }
  std::uint32_t rung_of(std::uint64_t task) const {
    return static_cast<std::uint32_t>(task / trials);
  }
  std::uint32_t brackets() const { return static_cast<std::uint32_t>(bracket_first.size()); }
  std::uint32_t bracket_of(std::uint32_t trial) const;
  /// Trials in bracket b.
  std::uint32_t bracket_size(std::uint32_t b) const;
  /// The rung a trial starts at: its bracket's index.
  std::uint32_t start_rung(std::uint32_t trial) const { return bracket_of(trial); }
  /// The budget of rung r as a token's text: a whole number without a point ("27"), else the
  /// shortest text that reads back the same ("0.25"); "" without budgets.
  std::string budget_text(std::uint32_t rung) const;
};

/// The shape a `tune:` block asks for: rungs min, min*eta, min*eta^2, ... while below max,
/// then max; random and sobol run every trial once at max (one rung). Hyperband's brackets
/// (`brackets`, at most the rungs; 0 = as many as rungs) share the trials as hyperband does:
/// bracket b, which starts at rung b, gets trials in proportion to eta^(R-1-b) / (R-b).
TuneShape shape_of(const spec::TuneSpec& spec);

}  // namespace merlin::tune
