#pragma once
/// The storage side of `merlin collect` and of `merlin sample -o x.h5`, as small interfaces:
/// the real thing is adapters/data/hdf5 (the only code that sees HDF5), handed in by the CLI.
///
/// A collected dataset holds one row per sample: `/sample_ids`, `/status` (SampleStatus),
/// `/inputs` (the sample's row of the study's samples) and one dataset per field under
/// `/fields/`. The rows committed are those up to the file's `rows_committed` attribute,
/// which is updated last, after the data is flushed: rows beyond it (an interrupted append)
/// are dropped when the file is opened again. A row that is not ok is rewritten in place when
/// a later collect reads the sample with another status (a sample repaired by a restart).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "merlin/core/data/compression.h"
#include "merlin/core/data/field_type.h"
#include "merlin/core/util/result.h"

namespace merlin::data {

/// A sample's row in `/status`.
enum class SampleStatus : std::uint8_t {
  kMissing = 0,    ///< the step succeeded but an output file is not there
  kOk = 1,         ///< every file read, every field of the dataset's shape
  kFailed = 2,     ///< the step failed for this sample (journal): its outputs are not read
  kMalformed = 3,  ///< a file could not be parsed, or a field changed shape or went missing
};

/// One field's per-sample shape (the dataset's shape is (rows, *shape)) and element type. A
/// field of a type without NaN (integers, bool, string) has a mask beside it (1 = missing).
struct FieldLayout {
  std::string name;
  std::vector<std::uint64_t> shape;
  DType type = DType::kFloat64;
  std::uint64_t size() const {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

/// What a dataset file holds; two collects append to one file only when these agree.
struct DatasetLayout {
  std::string step;                        ///< the step collected
  std::vector<std::string> files;          ///< its output files, as given to --file
  std::vector<std::string> input_columns;  ///< `/inputs` columns (the samples' labels)
  std::vector<FieldLayout> fields;         ///< `/fields/<name>`
  /// An `/iteration` column (uint32, 1-based): the step runs in a loop or takes its samples
  /// from a file (`samples_from`), so a row is (iteration, sample id), not a sample id alone.
  bool iterations = false;
  /// How a new file's field datasets are compressed (not read back from a file: appending
  /// keeps each dataset's own filters).
  Compression compression;
};

/// Root attributes that describe where the data came from.
struct DatasetOrigin {
  std::string study;
  std::string spec_text;
  std::string vars;  ///< the run's --vars, "K=V K=V"
  std::string workspace;
};

/// Rows to append, column by column: every vector has rows() entries (times the width).
struct RowBatch {
  std::vector<std::uint64_t> ids;
  std::vector<std::uint8_t> status;
  std::vector<std::uint32_t> iterations;    ///< when the layout has `iterations`, else empty
  std::vector<double> inputs;               ///< rows × input_columns
  std::vector<FieldColumn> fields;          ///< per field of the layout: rows × field size
  std::size_t rows() const { return ids.size(); }
  void clear() {
    ids.clear();
    status.clear();
    iterations.clear();
    inputs.clear();
    for (auto& f : fields) f.clear();
  }
};

/// An open dataset file. Not thread-safe: one writer thread owns it.
class DatasetSink {
 public:
  virtual ~DatasetSink() = default;
  virtual const DatasetLayout& layout() const = 0;
  /// Rows committed so far.
  virtual std::uint64_t rows() const = 0;
  /// Calls `each` with every committed row's index, sample id and status, in row order (read
  /// in chunks).
  virtual Result<void> for_each_row(const std::function<void(std::uint64_t row, std::uint64_t id,
                                                             SampleStatus status)>& each) = 0;
  /// for_each_row with each row's iteration too (1 in a file without `/iteration`).
  virtual Result<void> for_each_keyed_row(
      const std::function<void(std::uint64_t row, std::uint64_t id, std::uint32_t iteration,
                               SampleStatus status)>& each) {
    return for_each_row([&](std::uint64_t row, std::uint64_t id, SampleStatus status) {
      each(row, id, 1, status);
    });
  }
  /// Rows rewritten in place over the file's life (its `rows_rewritten` attribute).
  virtual std::uint64_t rows_rewritten() const = 0;
  /// Appends the batch, flushes, then moves `rows_committed` (and the `updated` time) on. A new
  /// file appears under its name at its first append (built under a temporary name before).
  /// Errors (kRuntime) name the file.
  virtual Result<void> append(const RowBatch& batch) = 0;
  /// Rewrites committed rows in place: batch row i goes to file row `rows[i]` (< rows(); its
  /// id and inputs are the row's already and are not written). The fields are written and
  /// flushed first, the status last, then `rows_rewritten` grows by the count and `updated`
  /// moves on: a rewrite cut short leaves a row whose status is still the old one (not ok),
  /// which the next collect rewrites again. Errors (kRuntime) name the file.
  virtual Result<void> rewrite(const std::vector<std::uint64_t>& rows, const RowBatch& batch) = 0;
  /// Threads that may compress an append's whole chunks at once (collect's -j); 1 by default.
  virtual void set_compress_threads(unsigned /*threads*/) {}
};

/// A streamed N × C float64 matrix (`merlin sample -o x.h5`): appended block by block, then
/// committed (renamed into place). Destroyed uncommitted, it leaves nothing behind.
class MatrixSink {
 public:
  virtual ~MatrixSink() = default;
  /// `rows` rows of `columns` values each, row-major.
  virtual Result<void> append(const double* values, std::uint64_t rows) = 0;
  virtual Result<void> commit() = 0;
  /// A root attribute describing the file (`merlin sample`'s provenance), before commit;
  /// kRuntime naming the file when it cannot be written.
  virtual Result<void> set_attribute(const std::string& name, const std::string& value) = 0;
  virtual Result<void> set_attribute(const std::string& name, std::uint64_t value) = 0;
};

/// Opens and makes dataset files of one format.
class DatasetFormat {
 public:
  virtual ~DatasetFormat() = default;
  /// An existing dataset file; kBadInput naming the file when it is not one of ours (or is
  /// damaged), kRuntime when it cannot be read. Rows beyond `rows_committed` are dropped.
  virtual Result<std::unique_ptr<DatasetSink>> open(const std::string& path) = 0;
  /// A new dataset file of `layout`, built under a temporary name beside `path` and renamed
  /// to `path` at its first append; kRuntime naming the file when it cannot be made.
  virtual Result<std::unique_ptr<DatasetSink>> create(const std::string& path,
                                                      const DatasetLayout& layout,
                                                      const DatasetOrigin& origin) = 0;
  /// A new matrix file holding dataset `name` with a `column_labels` attribute.
  virtual Result<std::unique_ptr<MatrixSink>> create_matrix(
      const std::string& path, const std::string& name,
      const std::vector<std::string>& column_labels) = 0;
};

}  // namespace merlin::data
