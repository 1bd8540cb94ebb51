#pragma once
/// Pruning a running trial (docs/tuning.md, "Pruning"): the rule that decides, from a trial's
/// newest intermediate value and those of the trials that already finished its rung, whether
/// it can still be among the ones promoted from that rung. Pure: the worker's TrialWatch
/// gathers the values and ends the run.
#include <cstddef>
#include <optional>
#include <vector>

#include "merlin/core/data/output_reader.h"

namespace merlin::tune {

/// The value `curve` had at `budget`: its last point at or below it, nullopt without one.
/// (A curve logged more sparsely than another is compared at its latest point before:
/// at a smaller budget, so usually worse, which only makes pruning more cautious.)
std::optional<double> value_at(const std::vector<data::MetricPoint>& curve, double budget);

/// The newest point of a trial running from budget `from` (exclusive) to `to` (exclusive:
/// a trial at its rung's budget is about to end anyway); nullopt without one.
std::optional<data::MetricPoint> newest_between(const std::vector<data::MetricPoint>& curve,
                                                double from, double to);

struct PruneVerdict {
  bool prune = false;
  double budget = 0;         ///< where the trial was compared
  double value = 0;          ///< its value there
  double cut = 0;            ///< the value it had to match (when `keep` > 0)
  std::size_t compared = 0;  ///< finished trials whose values at `budget` were known
  std::size_t keep = 0;      ///< ⌊(compared + 1) / η⌋: how many of them and it go on
};

/// With `others` the values at `at.budget` of the trials that finished the rung (NaN for
/// none), the trial is pruned when at least ⌊(m+1)/η⌋ ≥ 1 of those m are strictly better
/// than its own value: then, were the rung decided now and at this budget, it would not be
/// promoted. NaN counts as worse than any number; with fewer than η − 1 others nothing is
/// pruned.
PruneVerdict prune_verdict(data::MetricPoint at, std::vector<double> others, double eta,
                           bool maximize);

}  // namespace merlin::tune
