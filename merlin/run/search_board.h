#pragma once
/// A search's leaderboard as `merlin status` shows it after its step table (docs/tuning.md,
/// "Watching a search"): per tuned instance, a title line with its counts and a table of its
/// best trials. Pure functions of the standings a progress store returns
/// (StateStore::standings); the CLI only prints.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/report/format.h"
#include "merlin/core/report/json_writer.h"
#include "merlin/core/report/table.h"
#include "merlin/core/spec/study_spec.h"
#include "merlin/core/study/study_graph.h"
#include "merlin/core/tune/rung_book.h"
#include "merlin/core/tune/tune_shape.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// One tuned instance: what its leaderboard needs.
struct SearchBoard {
  std::string step;
  std::string labels;    ///< the instance's parameter labels; "" for an unparameterised step
  std::string instance;  ///< its directory, relative to the workspace (`search`, `search/N.10`)
  spec::TuneSpec spec;
  tune::TuneShape shape;
  std::vector<tune::TrialStanding> board;  ///< best first (tune::leaderboard)
  std::set<std::uint32_t> pruned;          ///< trials with MERLIN_PRUNED (tune::pruned_trials)
};

/// How many trials are in each state (tune::trial_state), and the leader.
struct SearchCounts {
  std::uint32_t trials = 0;
  std::uint32_t full = 0;  ///< with a result at the last rung (the full budget)
  std::uint32_t waiting = 0, running = 0, completed = 0, stopped = 0, failed = 0, pruned = 0;
  /// The first of the board when it has a result; nullopt before any.
  std::optional<tune::TrialStanding> best;
};

SearchCounts search_counts(const SearchBoard& search);

/// "search: 27 trials, 1 at the full budget (27), 14 stopped, best 0.0459 (trial 24)"; the
/// labels in parentheses after the step when it has some ("search (N.10): ..."); failed,
/// running and waiting counts when not zero; "no result yet" before the first.
std::string search_title(const SearchBoard& search);

/// The best `limit` trials (0: all): rank (from 1), trial, rung, budget, value, state, then one
/// column per space dimension (integers and reals as numbers, choices as strings; a dimension
/// named as one of the first six columns is keyed `config.NAME` in JSON). A waiting trial has
/// null rung, budget and value; a failed one a null value.
report::Table search_table(const SearchBoard& search, std::size_t limit);

/// The leaderboards of a study's tuned instances, in instance order, from `store` (told each
/// instance's shape first, StateStore::set_tuned), with the pruned trials marked in their
/// directories under the graph's workspace. An instance whose standings are empty (a store
/// that does not keep them) is left out.
Result<std::vector<SearchBoard>> search_boards(const StudyGraph& graph, StateStore& store);

/// One search as a JSON object: step, labels (null without), instance, method, mode, trials,
/// full_budget, budget (the full budget; null without a budget), waiting, running,
/// completed, stopped, failed, best_trial and best_value (null before a result), and
/// `leaderboard`: search_table's rows.
report::Object search_object(const SearchBoard& search, std::size_t limit);

/// Text after the step table: per search, a blank line, its title, and its table (with a
/// line saying how many more trials `--trials 0` shows when `limit` cut some). "" without
/// searches.
std::string searches_text(const std::vector<SearchBoard>& searches, std::size_t limit);

}  // namespace merlin::run
