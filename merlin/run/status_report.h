#pragma once
/// The per-step status table (total, done, failed, running, queued, mean run time), computed
/// from per-instance progress: O(instances), never a walk over sample directories.
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/report/format.h"
#include "merlin/core/report/study_snapshot.h"
#include "merlin/core/report/table.h"
#include "merlin/core/study/study_graph.h"
#include "merlin/run/search_board.h"

namespace merlin::run {

using report::StepStatus;

/// `running` may be empty (nothing is running). A fan-out instance counts its recorded count
/// (from `progress`) once released, and in `count_unknown` before.
std::vector<StepStatus> step_status(const StudyGraph& graph,
                                    const std::vector<InstanceProgress>& progress,
                                    const std::vector<std::uint32_t>& running);

using StatusFormat = report::Format;

/// The rows as a report table (docs/json-output.md, `merlin status`): step, instances, total,
/// done, failed, running, queued (integers), mean_seconds (a number; 3 decimals in text).
report::Table status_table(const std::vector<StepStatus>& rows);

/// The table ends with a line per step with instances of unknown count ("trial: 2 instances
/// pending, count unknown"); JSON and CSV keep their columns (CSV: headers are the JSON names,
/// mean_seconds with 6 decimals).
std::string format_status(const std::vector<StepStatus>& rows, StatusFormat format);

/// `merlin status`' whole output (docs/json-output.md). Text: format_status's table, then the
/// searches' leaderboards (searches_text) with their best `trials` trials (0: all). JSON and
/// CSV: the step rows, as always (an array of step objects; one CSV table). With
/// `searches_only` (`--searches`): the leaderboards alone; in JSON an array of search_object,
/// one per search (`[]` without any); CSV is kBadInput's business (the CLI refuses it).
std::string status_document(const std::vector<StepStatus>& rows,
                            const std::vector<SearchBoard>& searches, std::size_t trials,
                            StatusFormat format, bool searches_only = false);

/// "4520/100000 tasks (4.5%)  1234.5/s  ETA 1m17s" for progress lines.
std::string progress_line(std::uint64_t done, std::uint64_t total, double elapsed_seconds);

}  // namespace merlin::run
