#pragma once
/// `merlin collect`: the per-sample output files of a sampled step, gathered into one dataset
/// file (one row per sample; see docs/collect.md). Which samples finished, and how, comes from
/// the study's task journals; sample directories come from the hierarchy's arithmetic. Reader
/// threads parse the files and feed one writer through a bounded queue, so memory is bounded
/// whatever the sample count (besides two bits per sample). Rows go in by batches, each
/// flushed before the file's committed row count moves on.
///
/// Idempotent: samples already in the file are skipped, so running it again (or after an
/// interruption) appends only what is new. Rows that are not ok are read again (a failed row
/// once its journal shows a success) and rewritten in place when their status changed: a
/// sample repaired by `merlin restart` gets its values.
///
/// The fields of a new file come from the lowest sample id (of those finished) whose files all
/// read, found before the reader threads start: the same inputs give the same file whatever
/// the thread count.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "merlin/core/data/dataset_sink.h"
#include "merlin/core/data/output_file.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

struct CollectOptions {
  std::string workspace;                 ///< the study's workspace directory
  std::string step;                      ///< a sampled step of one parameter combination
  std::vector<std::string> files;        ///< output files, relative to each sample's directory
  std::string output;                    ///< the dataset file
  bool follow = false;                   ///< keep collecting until every sample finished
  std::chrono::milliseconds poll{1000};  ///< --follow: how often the journals are read
  unsigned threads = 4;                  ///< reader threads
  std::size_t batch_rows = 1024;         ///< rows per append (and flush)
  std::size_t queue_items = 1024;        ///< samples read ahead of the writer, at most
  bool progress = true;                  ///< a progress line on stderr
  std::size_t max_warnings = 20;         ///< per-sample warnings shown; the rest are counted
  /// A larger output file makes its sample malformed (--max-output-size).
  std::uint64_t max_output_bytes = data::kDefaultMaxOutputBytes;
  /// How a new file's fields are compressed (--compression); an existing file keeps its own.
  data::Compression compression;
};

struct CollectSummary {
  std::string output;
  std::uint64_t samples = 0;                                     ///< of the step
  std::uint64_t already = 0;                                     ///< rows in the file before
  std::uint64_t written = 0;                                     ///< rows appended now
  std::uint64_t ok = 0, missing = 0, failed = 0, malformed = 0;  ///< of the rows appended now
  std::uint64_t unfinished = 0;    ///< samples not finished when collect ended
  std::uint64_t unwritten = 0;     ///< finished, but no sample's outputs read yet: no layout
  std::uint64_t rows = 0;          ///< in the file now
  std::uint64_t rewritten = 0;     ///< rows of the file rewritten now (their status changed)
  std::uint64_t rewritten_ok = 0;  ///< of those, ok now
  /// A loop or fan-out step's: iterations with rows, and those whose samples_from file could
  /// not be read (released, no rows: a failed step).
  std::uint64_t iterations = 0, no_table = 0;
  bool iterated = false;  ///< a loop or fan-out step (the file has an /iteration column)
};

/// Collects. Errors: kBadInput (exit 2) for a workspace, step, file name or output that cannot
/// be used — a step that is missing, not sampled or of several parameter combinations, an
/// existing output of another layout (left untouched), an output directory that cannot be
/// written; kRuntime for a file that cannot be written midway (what was committed stays).
/// Missing, failed and malformed samples are rows with their status, never errors.
Result<CollectSummary> collect_outputs(const CollectOptions& options, data::DatasetFormat& format,
                                       const std::string& cwd);

/// "collect: 95 rows appended to out.h5 (93 ok, 1 failed, 1 malformed, 0 missing output); ...",
/// and "; 2 rows rewritten (2 ok)" when rows were.
std::string collect_summary_text(const CollectSummary& s);

}  // namespace merlin::run
