#pragma once
/// What a search shows and leaves behind (docs/tuning.md): the leaderboard's order and the
/// texts of best.json, best.env and trials.csv, written into the tuned instance's directory
/// when its last task ends. Pure text functions.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "merlin/core/spec/study_spec.h"
#include "merlin/core/tune/rung_book.h"
#include "merlin/core/tune/tune_shape.h"

namespace merlin::tune {

/// Trials best first: the highest rung reached, then the result by the metric's mode (NaN
/// last), then the trial number.
std::vector<TrialStanding> leaderboard(std::vector<TrialStanding> standings, bool maximize);

/// A trial's state as trials.csv and `merlin status` show it: `waiting` (no result yet, not
/// stopped), `running` (promoted to a rung it has no result for, or its last rung still
/// open), `completed` (stopped at the last rung with a result), `stopped` (not promoted),
/// `failed` (stopped without a result).
/// `pruned` (the trial's directory has MERLIN_PRUNED, tune::pruned_trials): `pruned` instead
/// of `failed`.
std::string trial_state(const TrialStanding& standing, const TuneShape& shape,
                        bool pruned = false);

/// A trial's directory under its instance's: `trial_NN`, zero-padded to the width of the
/// largest trial number.
std::string trial_dir_name(const TuneShape& shape, std::uint32_t trial);

/// `{"trial": 7, "rung": 3, "budget": 27, "value": 0.0012, "config": {"X": 0.31, ...},
/// "method": "asha", "trials": 27, "trial_dir": "..."}` for the leader; `{}` without one.
std::string best_json(const spec::TuneSpec& spec, const TuneShape& shape,
                      const std::vector<TrialStanding>& board, const std::string& trial_dir);
/// The leader's configuration as shell assignments (`X='0.31'`), its budget token, TRIAL and
/// TRIAL_DIR: `source best.env` in the next step. Empty without a leader.
std::string best_env(const spec::TuneSpec& spec, const TuneShape& shape,
                     const std::vector<TrialStanding>& board, const std::string& trial_dir);
/// Every trial, best first: trial,rung,budget,value,state,<space names...>.
std::string trials_csv(const spec::TuneSpec& spec, const TuneShape& shape,
                       const std::vector<TrialStanding>& board,
                       const std::set<std::uint32_t>& pruned = {});

}  // namespace merlin::tune
