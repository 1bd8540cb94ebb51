#pragma once
/// The `.npy` reader behind open_sample_table().
#include <memory>
#include <string>

#include "merlin/core/samples/mapped_file.h"
#include "merlin/core/samples/sample_table.h"
#include "merlin/core/util/result.h"

namespace merlin::samples {

/// Memory-maps a `.npy` file; O(1) time and memory in the number of rows (the data is only
/// validated for size, never scanned). A 1-D array is one column; a 2-D array (C or Fortran
/// order) is rows x columns. Errors (kBadInput) start with the path: see parse_npy_header,
/// plus 0-d or >2-d shapes, no samples, and data shorter than the shape promises.
Result<std::unique_ptr<SampleTable>> open_npy_table(const std::string& path);

/// The same reader on a file already in hand (open_npy_table maps it and calls this; the fuzz
/// targets hand it MappedFile::copy_of). Messages name `file.path()`.
Result<std::unique_ptr<SampleTable>> read_npy_table(MappedFile file);

}  // namespace merlin::samples
