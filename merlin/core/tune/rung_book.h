#pragma once
/// Asynchronous successive halving, as bookkeeping (docs/tuning.md): which tasks of a tuned
/// instance a result promotes, and which will never run. Pure and deterministic: the same
/// results in the same order give the same decisions, so a store can replay its journal into
/// a book and a Redis script can follow the same rules.
///
/// Rules, per bracket (ASHA's, Li et al. 2020, for a fixed number of trials):
///  - A result of trial t at rung k is recorded once (a second one changes nothing).
///    NaN is a trial without a result (failed, pruned, no metric): it counts as finished at
///    its rung and is never promoted.
///  - After each result at rung k, every trial among the best floor(n_k / eta) of the n_k
///    finished at rung k that was not promoted yet is promoted to rung k+1: at once, whatever
///    the other rungs are doing. A promotion is never taken back.
///  - Rung k closes when every trial that will ever reach it has finished it (the bracket's
///    first rung: all its trials; a later rung: all trials promoted into it, once the rung
///    below is closed). When a rung closes with nobody promoted from it, its best trial with
///    a result is promoted, so the search always trains one configuration to the full budget.
///    Then every trial of the rung left unpromoted is stopped: its tasks above the rung will
///    never run and are reported as skipped. Closing may close the next rung too.
///  - Ties are broken by trial number (lower first).
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "merlin/core/tune/tune_shape.h"

namespace merlin::tune {

struct RungDecision {
  bool newly = false;                   ///< false: that task's result was recorded before
  std::vector<std::uint64_t> promoted;  ///< tasks to queue: (trial, rung + 1), ascending
  std::vector<std::uint64_t> skipped;   ///< tasks that will never run, ascending
};

/// A trial as the leaderboard shows it.
struct TrialStanding {
  std::uint32_t trial = 0;
  /// The highest rung with a result, or -1 before the first.
  int rung = -1;
  double value = 0;        ///< the result at that rung (NaN: none)
  bool running = false;    ///< promoted to a rung it has no result for yet (or not started)
  bool stopped = false;    ///< will run no more (not promoted, or at the last rung)
};

class RungBook {
 public:
  explicit RungBook(TuneShape shape);

  const TuneShape& shape() const { return shape_; }
  /// Tasks below each trial's first rung (later hyperband brackets): done from the start.
  std::vector<std::uint64_t> skipped_at_start() const;
  /// Records task `task`'s result (see the rules).
  RungDecision record(std::uint64_t task, double value);
  bool recorded(std::uint64_t task) const;
  /// Tasks promoted and not recorded yet: queued, running, or lost with a worker.
  std::vector<std::uint64_t> promoted_pending() const;
  /// Every task is recorded or skipped.
  bool finished() const { return open_ == 0; }
  /// One row per trial, in trial order.
  std::vector<TrialStanding> standings() const;
  /// The trial with the best result at the highest rung any trial reached; nullopt before
  /// any result.
  std::optional<TrialStanding> best() const;

 private:
  struct Rung {
    std::uint32_t finished = 0;
    std::set<std::pair<double, std::uint32_t>> ranked;  ///< (key, trial), key lower = better
    std::vector<std::uint32_t> members;                 ///< trials finished here
    std::set<std::uint32_t> promoted;
    bool closed = false;
  };
  Rung& rung(std::uint32_t bracket, std::uint32_t k) { return rungs_[bracket * shape_.rungs + k]; }
  const Rung& rung(std::uint32_t bracket, std::uint32_t k) const {
    return rungs_[bracket * shape_.rungs + k];
  }
  double key(double value) const { return shape_.maximize ? -value : value; }
  void promote(std::uint32_t bracket, std::uint32_t k, std::uint32_t trial, RungDecision& out);
  void close_from(std::uint32_t bracket, std::uint32_t k, RungDecision& out);

  TuneShape shape_;
  std::vector<Rung> rungs_;             ///< brackets × rungs
  std::vector<std::uint64_t> done_;     ///< per trial: bit k = rung k recorded
  std::vector<double> last_value_;      ///< per trial: the result at its highest recorded rung
  std::vector<std::uint8_t> stopped_;   ///< per trial
  std::uint64_t open_ = 0;              ///< tasks neither recorded nor skipped
};

}  // namespace merlin::tune
