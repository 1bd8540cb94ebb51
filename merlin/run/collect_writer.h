#pragma once
/// The writer side of `merlin collect` (collect_run.h): takes each sample's read outputs,
/// checks them against the dataset's layout (the file's, or for a new file the first sample
/// whose outputs all read), gathers rows into batches and appends them. One thread uses it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "merlin/data/dataset_sink.h"
#include "merlin/data/sample_fields.h"
#include "merlin/util/result.h"

namespace merlin::run {

/// One sample as a reader thread left it.
struct SampleRead {
  std::uint64_t id = 0;
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

  /// Takes one sample's row (a copy of its values goes into the batch). Errors: the file's.
  Result<void> add(SampleRead s);
  /// Appends the rows batched so far.
  Result<void> flush();

  /// Rows appended so far, by status (index = SampleStatus).
  const std::uint64_t* counts() const { return counts_; }
  std::uint64_t written() const { return written_; }
  /// Samples waiting for a layout (no sample's outputs have read yet); not written.
  std::uint64_t waiting() const { return pending_.size(); }
  /// Called with each sample id once its row is committed.
  std::function<void(std::uint64_t)> on_committed;
  const data::DatasetSink* sink() const { return sink_.get(); }

 private:
  // Why `fields` do not fit the layout; "" when they do.
  std::string misfit(const data::SampleFields& fields) const;
  void push_row(std::uint64_t id, data::SampleStatus st, const data::SampleFields* fields);

  std::unique_ptr<data::DatasetSink> sink_;
  data::DatasetLayout base_;
  Create create_;
  Inputs inputs_;
  Warn warn_;
  std::size_t batch_rows_;
  data::RowBatch batch_;
  std::vector<std::pair<std::uint64_t, data::SampleStatus>> pending_;
  std::uint64_t counts_[4] = {0, 0, 0, 0};
  std::uint64_t written_ = 0;
};

}  // namespace merlin::run
