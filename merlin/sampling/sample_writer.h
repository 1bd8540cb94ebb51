#pragma once
/// Writes a SampleDesign's rows to a file, streamed block by block (memory flat in the row
/// count): `.npy` (float64, shape (rows, columns), C order: what a spec's `merlin.samples.file`
/// reads), `.csv` (comma-separated, `%.17g`, an optional header of the column names) or `.tab`
/// (the same with spaces). Written under a temporary name and renamed: a reader never sees
/// half a file. HDF5 output comes with merlin collect's HDF5 adapter (issue #12).
#include <cstdint>
#include <string>

#include "merlin/sampling/sample_design.h"
#include "merlin/util/result.h"

namespace merlin::sampling {

struct WriteOptions {
  bool header = false;  ///< csv/tab: a first line with the column names
};

/// The rows written (for a grid, grid_side(rows)^columns). kBadInput for an unknown extension,
/// kRuntime for a file that cannot be written (naming it and the system's words).
Result<std::uint64_t> write_samples(const SampleDesign& d, const std::string& path,
                                    const WriteOptions& options = {});

}  // namespace merlin::sampling
