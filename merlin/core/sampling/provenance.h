#pragma once
/// How a sample file was made, as JSON: the sidecar `FILE.json` that `merlin sample` writes
/// beside a .npy/.csv/.tab file (and the `provenance` attribute of an .h5 file). Pure text.
#include <cstdint>
#include <string>
#include <string_view>

#include "merlin/core/sampling/sample_design.h"

namespace merlin::sampling {

/// A JSON object, one member per line: "generator" ("merlin sample"), "merlin_version", "method",
/// "rows" (as written: design_rows), "seed", "scramble" (true/false; false for methods that are
/// not scrambled), "scrambling" (what the scrambling is, or null), "columns" (an array of
/// {"name", "lo", "hi", "scale": "linear"|"log", "distribution"}). Ends in "\n".
std::string provenance_json(const SampleDesign& d, std::uint64_t rows_written,
                            std::string_view version);

/// The sidecar of a sample file: `path` + ".json" (x.npy -> x.npy.json).
std::string provenance_path(const std::string& sample_path);

}  // namespace merlin::sampling
