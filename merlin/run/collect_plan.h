#pragma once
/// `merlin collect`'s decisions (collect_run.h does the reading and writing): which output
/// files and which step it can read, what an existing file already holds, which samples a
/// round reads, where each read sample goes (a new row or a rewritten one), whether --follow
/// reads again, and the summary. Pure functions on plain values; no clock, no file.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "merlin/core/data/dataset_sink.h"
#include "merlin/core/data/output_reader.h"
#include "merlin/run/collect_run.h"
#include "merlin/core/study/study_graph.h"
#include "merlin/core/util/result.h"

namespace merlin::run::collect {

/// One `--file`, as collect reads it.
struct OutputFile {
  std::string name;  ///< as given
  data::OutputKind kind;
  std::string stem;  ///< its fields' prefix
};

/// The `--file`s as output files. kBadInput for none, an unknown extension, an absolute path,
/// or two files whose fields would share a name (their stems).
Result<std::vector<OutputFile>> output_files(const std::vector<std::string>& files);

/// The step `step` of `graph`, if collect can read it: sampled (a fan-out step is; it may run
/// in a loop), one parameter combination (per loop iteration). kBadInput otherwise, with a
/// "did you mean" for a name the study does not have.
Result<const StepNode*> collectable_step(const StudyGraph& graph, const std::string& step);

/// A layout mismatch between an existing file and this collect ("it holds step 'a', not
/// 'b'"), or "" when the file can take this collect's rows.
std::string layout_mismatch(const data::DatasetLayout& file, const data::DatasetLayout& want);

/// A row of the file to read again, and its status there.
struct Redo {
  std::uint64_t row;
  data::SampleStatus was;
};

/// What the file holds and what this collect handed to the writer, by sample id.
struct Ledger {
  explicit Ledger(std::uint64_t samples) : taken(samples, false) {}
  /// Keys added (a loop's new iteration): `keys` in all, the new ones not taken.
  void grow(std::uint64_t keys) {
    if (keys > taken.size()) taken.resize(keys, false);
  }
  /// In the file or handed to the writer: never read again, but for rows to redo.
  std::vector<bool> taken;
  /// The file's rows that are not ok: read again, rewritten if their status changed.
  std::unordered_map<std::uint64_t, Redo> redo;

  /// A row of the existing file (appending to it): an id past the step's samples is ignored;
  /// a row that is not ok is to redo, an ok one ends any redo of its id (the last row wins).
  void record_row(std::uint64_t row, std::uint64_t id, data::SampleStatus status);
};

/// The samples one round reads.
struct Round {
  std::vector<bool> todo;
  std::uint64_t count = 0;  ///< of todo
};

/// Finished samples not taken; of the rows to redo, a failed one whose journal now shows a
/// success, and (in the first round only) a missing or malformed one that finished.
Round plan_round(const Ledger& ledger, const std::vector<bool>& finished,
                 const std::vector<bool>& succeeded, bool first_round);

/// Where a read sample goes.
struct Handoff {
  bool rewrite = false;  ///< rewrite row `was.row` (its status was `was.was`); else add a row
  Redo was{};
};

/// A sample read: a rewrite of its row when the file holds it as a row to redo (not read again
/// unless it failed again), else a new row (then taken).
Handoff route_read(Ledger& ledger, std::uint64_t id, data::SampleStatus now);

/// --follow's memory between rounds.
struct FollowState {
  std::uint64_t last_finished = ~std::uint64_t{0};
  std::chrono::steady_clock::time_point alive_at;
};

/// After a round: kDone (not following, or every sample finished), kGone (a local run that
/// is gone finishes nothing more: no live run and no new commit for `gone_after`), kPoll
/// (wait and read again).
enum class NextRound { kDone, kGone, kPoll };

/// `run_alive` is asked only when the answer matters (a local run, following, not done):
/// whether the run's status.live says it runs. `now` is the time of this decision.
NextRound next_round(bool follow, bool local, std::uint64_t finished, std::uint64_t samples,
                     const std::function<bool()>& run_alive, FollowState& state,
                     std::chrono::steady_clock::time_point now,
                     std::chrono::steady_clock::duration gone_after);

/// What the writer did, as its counters say (index = SampleStatus).
struct WriterTally {
  std::uint64_t counts[4] = {0, 0, 0, 0};
  std::uint64_t written = 0, waiting = 0, rows = 0, rewritten = 0;
  std::uint64_t rewritten_counts[4] = {0, 0, 0, 0};
};

/// `sum` (output, samples, already, unfinished) completed with the writer's tally.
CollectSummary summary_of(CollectSummary sum, const WriterTally& tally);

/// A sample table's value as a dataset input: the number it reads as whole, else NaN.
double input_value(const std::string& text);

}  // namespace merlin::run::collect
