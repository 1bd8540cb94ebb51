#pragma once
/// The writer side of `merlin collect` (collect_run.h): takes each sample's read outputs,
/// checks them against the dataset's layout (the file's, or for a new file the one
/// `adopt_layout` was given: collect_run gives it the lowest sample id whose outputs all read,
/// so the layout never depends on which reader thread came first), gathers rows into batches
/// and appends them, or rewrites rows of the file whose status changed. One thread uses it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "merlin/core/data/dataset_sink.h"
#include "merlin/core/data/sample_fields.h"
#include "merlin/core/util/result.h"

namespace merlin::run {

/// Where a row goes in the file: its `/sample_ids` and `/iteration` values.
struct RowKey {
  std::uint64_t id = 0;
  std::uint32_t iteration = 1;
};

/// One sample as a reader thread left it.
struct SampleRead {
  std::uint64_t id = 0;  ///< its key: the sample id, or collect_run's key of (iteration, id)
  data::SampleStatus status = data::SampleStatus::kOk;
  data::SampleFields fields;  ///< when kOk
  std::string problem;        ///< why not kOk: "result.json: not valid JSON"
};

class CollectWriter {
 public:
  /// Makes the file once the first layout is known (`layout` without fields).
  using Create =
      std::function<Result<std::unique_ptr<data::DatasetSink>>(const data::DatasetLayout&)>;
  /// The sample's inputs (one value per input column) appended to `out`.
  using Inputs = std::function<void(std::uint64_t id, std::vector<double>& out)>;
  /// A warning about one sample (not ok).
  using Warn = std::function<void(const SampleRead&)>;

  /// `sink`: the open file, or null (a new file: `create` makes it).
  CollectWriter(std::unique_ptr<data::DatasetSink> sink, data::DatasetLayout base, Create create,
                Inputs inputs, Warn warn, std::size_t batch_rows);

  /// A new file's fields from `s` (its fields and shapes), made now through `create`; false
  /// (nothing made) when `s` is not ok or has an empty field. Only without a file yet.
  Result<bool> adopt_layout(const SampleRead& s);
  bool has_layout() const { return sink_ != nullptr; }

  /// Takes one sample's row (a copy of its values goes into the batch). Without a layout yet
  /// the row waits (its status only) until adopt_layout. Errors: the file's.
  Result<void> add(SampleRead s);
  /// `s` read again for the file's row `row`, whose status is `was` (not ok): the row is
  /// rewritten when the sample's status is now another (a failed sample repaired by a
  /// restart), and left as it is otherwise. Needs a layout. Errors: the file's.
  Result<void> rewrite(std::uint64_t row, data::SampleStatus was, SampleRead s);
  /// Appends the rows batched so far, and rewrites those batched for rewriting.
  Result<void> flush();

  /// Rows appended so far, by status (index = SampleStatus).
  const std::uint64_t* counts() const { return counts_; }
  std::uint64_t written() const { return written_; }
  /// Rows rewritten so far, by their new status (index = SampleStatus).
  const std::uint64_t* rewritten_counts() const { return rewritten_counts_; }
  std::uint64_t rewritten() const { return rewritten_; }
  /// Samples waiting for a layout (no sample's outputs have read yet); not written.
  std::uint64_t waiting() const { return pending_.size(); }
  /// A key's row key (the sample id and its iteration); unset: the key is the sample id, of
  /// iteration 1. Inputs and warnings are called with the key.
  std::function<RowKey(std::uint64_t key)> row_key;
  /// Called with each sample id once its row is committed.
  std::function<void(std::uint64_t)> on_committed;
  const data::DatasetSink* sink() const { return sink_.get(); }
  /// Rows per append (at most --batch, bounded in bytes for wide rows).
  std::size_t batch_rows() const { return batch_rows_; }

 private:
  // Why `fields` do not fit the layout; "" when they do.
  std::string misfit(const data::SampleFields& fields) const;
  // A kOk `s` that does not fit the layout becomes kMalformed, saying why.
  void check_fit(SampleRead& s) const;
  void push_row(data::RowBatch& batch, std::uint64_t id, data::SampleStatus st,
                const data::SampleFields* fields, bool with_inputs);

  std::unique_ptr<data::DatasetSink> sink_;
  data::DatasetLayout base_;
  Create create_;
  Inputs inputs_;
  Warn warn_;
  // Sizes the batches for the layout (batch_rows_for) once there is one.
  void size_batches();
  std::size_t asked_rows_;  ///< --batch
  std::size_t batch_rows_;  ///< rows per append: at most asked_rows_, bounded in bytes
  data::RowBatch batch_;
  data::RowBatch redo_;                   ///< rows to rewrite (ids and status, fields; no inputs)
  std::vector<std::uint64_t> redo_rows_;  ///< their rows in the file
  std::vector<std::pair<std::uint64_t, data::SampleStatus>> pending_;
  std::uint64_t counts_[4] = {0, 0, 0, 0};
  std::uint64_t rewritten_counts_[4] = {0, 0, 0, 0};
  std::uint64_t written_ = 0;
  std::uint64_t rewritten_ = 0;
};

}  // namespace merlin::run
