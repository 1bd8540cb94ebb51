#pragma once
/// Writes a SampleDesign's rows to a file, streamed block by block (memory flat in the row
/// count): `.npy` (float64, shape (rows, columns), C order: what a spec's `merlin.samples.file`
/// reads), `.csv` (comma-separated, `%.17g`, an optional header of the column names) or `.tab`
/// (the same with spaces). Written under a temporary name and renamed: a reader never sees
/// half a file. Other formats (HDF5: adapters/data/hdf5, chosen by the CLI) take the rows
/// from write_sample_rows.
#include <cstdint>
#include <functional>
#include <string>

#include "merlin/core/sampling/sample_design.h"
#include "merlin/core/util/result.h"

namespace merlin::sampling {

/// Asked between blocks of rows: true stops the writing (an interrupt), which then fails with
/// "interrupted" and leaves no file, temporary or final.
using StopCheck = std::function<bool()>;

struct WriteOptions {
  bool header = false;  ///< csv/tab: a first line with the column names
  StopCheck stopped;    ///< none: never stopped
};

/// The error of a writing stopped by `stopped`: kRuntime "interrupted: nothing written to PATH".
Error interrupted_error(const std::string& path);

/// The rows written (design_rows: a grid's k^d, star's and ccd's by their columns). kBadInput
/// for an unknown extension, kRuntime for a file that cannot be written (naming it and the system's words; kNoSpace for
/// a full disk). Stopped by `options.stopped`: interrupted_error, the temporary file removed.
/// `.h5`/`.hdf5` are kBadInput here: the CLI writes them through write_sample_rows.
Result<std::uint64_t> write_samples(const SampleDesign& d, const std::string& path,
                                    const WriteOptions& options = {});

/// Receives `rows` rows of the design's columns, row-major; an error stops the writing.
using RowBlockSink = std::function<Result<void>(const double* values, std::uint64_t rows)>;

/// Computes the design's rows block by block (memory flat in the row count) and hands each
/// block to `sink`, in order. Returns the rows handed (design_rows(d)).
/// kBadInput for a design check_design refuses; the sink's error otherwise; `stopped` is asked
/// before each block (an interrupt): true ends it with interrupted_error(`path`), the sink
/// holding a part of the rows (its owner drops it).
Result<std::uint64_t> write_sample_rows(const SampleDesign& d, const RowBlockSink& sink,
                                        const StopCheck& stopped = {},
                                        const std::string& path = "");

}  // namespace merlin::sampling
